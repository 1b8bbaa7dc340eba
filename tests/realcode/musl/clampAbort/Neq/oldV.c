#include <stdlib.h>

int clamp_index(int i, int n) {
    if (n <= 0) abort();
    if (i < 0) return 0;
    if (i >= n) return n - 1;
    return i;
}
