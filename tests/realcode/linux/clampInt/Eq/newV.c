#include <stdlib.h>

#define BUG_ON(cond) do { if (cond) abort(); } while (0)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

int clamp_int(int val, int lo, int hi) {
    BUG_ON(lo > hi);
    return max(min(val, hi), lo);
}
