#include <assert.h>
#define BASE 65521

long adler_step(long adler, int byte) {
    long a = adler & 0xffff;
    long b = (adler >> 16) & 0xffff;
    assert(a < BASE && b < BASE && byte >= 0 && byte < 256);
    a += byte;
    if (a >= BASE) a -= BASE;
    b += a;
    if (b >= BASE) b -= BASE;
    return (b << 16) | a;
}
