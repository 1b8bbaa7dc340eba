int mix32(int h, int v);

int page_checksum(int a, int b, int c) {
    return mix32(mix32(mix32(17, a), b), c);
}
