int mix32(int h, int v);

int page_checksum(int a, int b, int c) {
    int h = 17;
    h = mix32(h, a);
    h = mix32(h, b);
    h = mix32(h, c);
    return h;
}
