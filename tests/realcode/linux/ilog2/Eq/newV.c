#include <stdint.h>

int ilog2_u32(uint32_t n) {
    return n ? 31 - __builtin_clz(n) : -1;
}
