#include <string.h>

size_t strnlen_(const char *s, size_t n) {
    const char *p = memchr(s, 0, n);
    return p ? (size_t)(p - s) : n;
}
