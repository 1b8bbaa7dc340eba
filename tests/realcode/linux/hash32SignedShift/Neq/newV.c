#include <assert.h>
#include <stdint.h>

#define GOLDEN_RATIO_32 0x61C88647

uint32_t hash_32(uint32_t val, unsigned int bits) {
    int h;
    assert(bits >= 1 && bits <= 32);
    h = (int)(val * GOLDEN_RATIO_32);
    return h >> (32 - bits);
}
