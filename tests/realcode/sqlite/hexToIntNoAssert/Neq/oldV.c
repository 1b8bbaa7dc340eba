#include <assert.h>

#define IS_HEX_DIGIT(h) (((h) >= '0' && (h) <= '9') || ((h) >= 'a' && (h) <= 'f') || ((h) >= 'A' && (h) <= 'F'))

unsigned char hexToInt(int h) {
    assert(IS_HEX_DIGIT(h));
    h += 9 * (1 & (h >> 6));
    return (unsigned char)(h & 0xf);
}
