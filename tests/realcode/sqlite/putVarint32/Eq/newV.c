#include <stdint.h>

static int putVarint32Slow(unsigned char *p, uint32_t v) {
    int n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

int putVarint32(unsigned char *p, uint32_t v) {
    if (v < 0x80) {
        p[0] = (unsigned char)v;
        return 1;
    }
    if (v < 0x4000) {
        p[0] = (unsigned char)((v & 0x7f) | 0x80);
        p[1] = (unsigned char)(v >> 7);
        return 2;
    }
    return putVarint32Slow(p, v);
}
