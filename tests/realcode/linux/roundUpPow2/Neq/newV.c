int round_up(int x, int align) {
    return (x + align) / align * align;
}
