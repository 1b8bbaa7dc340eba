unsigned char hexToInt(int h) {
    if (h <= '9') {
        return (unsigned char)(h - '0');
    }
    if (h >= 'a') {
        return (unsigned char)(h - 'a' + 10);
    }
    return (unsigned char)(h - 'A' + 10);
}
