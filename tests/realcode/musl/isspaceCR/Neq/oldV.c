int isspace_(int c) {
    return c == ' ' || (unsigned)c - '\t' < 5;
}
