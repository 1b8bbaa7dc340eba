long long popcount(const unsigned char *p, long count) {
    long long bits = 0;
    long i;
    for (i = 0; i < count; i++) {
        bits += __builtin_popcount(p[i]);
    }
    return bits;
}
