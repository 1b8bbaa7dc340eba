#include <stddef.h>
#include <stdint.h>

#define POLY 0xedb88320UL

uint32_t crc32(uint32_t crc, const unsigned char *buf, size_t len) {
    int k;
    int32_t c = (int32_t)~crc;
    while (len--) {
        c ^= *buf++;
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (int32_t)(POLY & (uint32_t)(-(c & 1)));
    }
    return ~(uint32_t)c;
}
