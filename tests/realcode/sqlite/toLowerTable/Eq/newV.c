int toLower(unsigned char c) {
    return c + ((((unsigned)c - 'A') < 26u) << 5);
}
