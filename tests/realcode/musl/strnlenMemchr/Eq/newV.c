#include <stddef.h>

size_t strnlen_(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n && s[i]; i++)
        ;
    return i;
}
