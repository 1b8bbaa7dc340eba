#include <limits.h>

#define DICT_HT_INITIAL_EXP 2
#define DICT_HT_INITIAL_SIZE (1UL << DICT_HT_INITIAL_EXP)

signed char dictNextExp(unsigned long size) {
    unsigned char e = DICT_HT_INITIAL_EXP;

    if (size >= LONG_MAX) return (8 * sizeof(long) - 1);
    while (1) {
        if (((unsigned long)1 << e) >= size)
            return e;
        e++;
    }
}
