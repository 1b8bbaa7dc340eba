#include <limits.h>

#define DICT_HT_INITIAL_EXP 2
#define DICT_HT_INITIAL_SIZE (1UL << DICT_HT_INITIAL_EXP)

signed char dictNextExp(unsigned long size) {
    if (size <= DICT_HT_INITIAL_SIZE) return DICT_HT_INITIAL_EXP;
    if (size >= LONG_MAX) return (8 * sizeof(long) - 1);
    return 8 * sizeof(long) - __builtin_clzl(size - 1);
}
