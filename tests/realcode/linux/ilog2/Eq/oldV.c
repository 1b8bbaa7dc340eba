#include <stdint.h>

int ilog2_u32(uint32_t n) {
    int r = -1;
    while (n) {
        n >>= 1;
        r++;
    }
    return r;
}
