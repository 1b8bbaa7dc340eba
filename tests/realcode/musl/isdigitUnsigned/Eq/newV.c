int isdigit_(int c) {
    return (unsigned)c - '0' < 10;
}
