#include <stdint.h>

/* LEB128-style varint: 7 bits per byte, low group first, high bit = more. */
int putVarint32(unsigned char *p, uint32_t v) {
    int n = 0;
    do {
        unsigned char b = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v != 0) {
            b |= 0x80;
        }
        p[n++] = b;
    } while (v != 0);
    return n;
}
