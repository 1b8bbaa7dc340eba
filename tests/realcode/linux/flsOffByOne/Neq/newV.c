int fls(unsigned int x) {
    return x ? (int)(sizeof(x) * 8 - 1) - __builtin_clz(x) : 0;
}
