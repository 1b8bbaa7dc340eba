#include <stdint.h>

int getVarint32(const unsigned char *p, uint32_t *v) {
    uint32_t x;
    int i;
    if ((p[0] & 0x80) == 0) {
        *v = p[0];
        return 1;
    }
    if ((p[1] & 0x80) == 0) {
        *v = ((uint32_t)(p[0] & 0x7f) << 7) | p[1];
        return 2;
    }
    x = ((uint32_t)(p[0] & 0x7f) << 7) | (p[1] & 0x7f);
    for (i = 2; i < 5; i++) {
        x = (x << 7) | (p[i] & 0x7f);
        if ((p[i] & 0x80) == 0) {
            break;
        }
    }
    *v = x;
    return i < 5 ? i + 1 : 5;
}
