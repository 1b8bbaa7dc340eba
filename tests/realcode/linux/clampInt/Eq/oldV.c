#include <stdlib.h>

#define BUG_ON(cond) do { if (cond) abort(); } while (0)

int clamp_int(int val, int lo, int hi) {
    BUG_ON(lo > hi);
    if (val < lo)
        return lo;
    if (val > hi)
        return hi;
    return val;
}
