int round_up(int x, int align) {
    return (x + align - 1) / align * align;
}
