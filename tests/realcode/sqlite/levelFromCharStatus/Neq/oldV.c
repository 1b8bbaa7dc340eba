#include <stdlib.h>

int level_from_char(int c) {
    if (c < '0' || c > '3') {
        exit(2);
    }
    return c - '0';
}
