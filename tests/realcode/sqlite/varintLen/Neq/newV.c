#include <stdint.h>

int varintLen(uint32_t v) {
    if (v == 0) {
        return 1;
    }
    return (32 - __builtin_clz(v)) / 7 + 1;
}
