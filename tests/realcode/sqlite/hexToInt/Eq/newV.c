#include <assert.h>

#define IS_HEX_DIGIT(h) (((h) >= '0' && (h) <= '9') || ((h) >= 'a' && (h) <= 'f') || ((h) >= 'A' && (h) <= 'F'))

unsigned char hexToInt(int h) {
    assert(IS_HEX_DIGIT(h));
    if (h <= '9') {
        return (unsigned char)(h - '0');
    }
    if (h >= 'a') {
        return (unsigned char)(h - 'a' + 10);
    }
    return (unsigned char)(h - 'A' + 10);
}
