#include <assert.h>
#include <stdint.h>

uint32_t hash_32(uint32_t val, unsigned int bits) {
    assert(bits >= 1 && bits <= 32);
    return (uint32_t)(val * 0x61C88647u) >> (32 - bits);
}
