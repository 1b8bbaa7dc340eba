#include <assert.h>

unsigned bi_reverse(unsigned code, int len) {
    unsigned res = 0;
    assert(len >= 1 && len <= 15);
    do {
        res |= code & 1;
        code >>= 1, res <<= 1;
    } while (--len > 0);
    return res >> 1;
}
