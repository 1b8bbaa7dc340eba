int digits10(long v) {
    int n = 1;
    if (v >= 10) n++;
    if (v >= 100) n++;
    if (v >= 1000) n++;
    if (v >= 10000) n++;
    return n;
}
