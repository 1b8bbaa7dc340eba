#include <assert.h>
#include <stdint.h>

#define GOLDEN_RATIO_32 0x61C88647

static inline uint32_t __hash_32(uint32_t val) {
    return val * GOLDEN_RATIO_32;
}

uint32_t hash_32(uint32_t val, unsigned int bits) {
    assert(bits >= 1 && bits <= 32);
    /* High bits are more random, so use them. */
    return __hash_32(val) >> (32 - bits);
}
