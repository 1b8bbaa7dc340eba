#include <stdint.h>

/* Big-endian varint, 7 bits per byte, at most 5 bytes for 32 bits. */
int getVarint32(const unsigned char *p, uint32_t *v) {
    uint32_t x = 0;
    int i;
    for (i = 0; i < 5; i++) {
        x = (x << 7) | (p[i] & 0x7f);
        if ((p[i] & 0x80) == 0) {
            *v = x;
            return i + 1;
        }
    }
    *v = x;
    return 5;
}
