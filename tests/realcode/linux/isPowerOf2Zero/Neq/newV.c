#include <stdbool.h>

bool is_power_of_2(unsigned long n) {
    return __builtin_popcountl(n) <= 1;
}
