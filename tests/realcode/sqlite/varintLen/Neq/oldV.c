#include <assert.h>
#include <stdint.h>

int varintLen(uint32_t v) {
    int i;
    for (i = 1; (v >>= 7) != 0; i++) {
        assert(i < 5);
    }
    return i;
}
