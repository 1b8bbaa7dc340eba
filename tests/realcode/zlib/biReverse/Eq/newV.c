#include <assert.h>

unsigned bi_reverse(unsigned code, int len) {
    unsigned x = code & 0xffff;
    assert(len >= 1 && len <= 15);
    x = ((x & 0x5555) << 1) | ((x >> 1) & 0x5555);
    x = ((x & 0x3333) << 2) | ((x >> 2) & 0x3333);
    x = ((x & 0x0f0f) << 4) | ((x >> 4) & 0x0f0f);
    x = ((x & 0x00ff) << 8) | ((x >> 8) & 0x00ff);
    return x >> (16 - len);
}
