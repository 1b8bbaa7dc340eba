#include <stdint.h>

#define INTSET_ENC_INT16 (sizeof(int16_t))
#define INTSET_ENC_INT32 (sizeof(int32_t))
#define INTSET_ENC_INT64 (sizeof(int64_t))

uint8_t intsetValueEncoding(int64_t v) {
    if (v >= INT16_MIN && v < INT16_MAX)
        return INTSET_ENC_INT16;
    if (v >= INT32_MIN && v <= INT32_MAX)
        return INTSET_ENC_INT32;
    return INTSET_ENC_INT64;
}
