#include <stdlib.h>

int level_from_char(int c) {
    if (c < '0' || c > '3') {
        abort();
    }
    return c - '0';
}
