int isspace_(int c) {
    return c == ' ' || (c >= '\t' && c < '\r');
}
