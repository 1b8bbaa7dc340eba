#include <stddef.h>

enum { SDS_TYPE_5 = 0, SDS_TYPE_8 = 1, SDS_TYPE_16 = 2, SDS_TYPE_32 = 3, SDS_TYPE_64 = 4 };

char sdsReqType(size_t string_size) {
    if (string_size <= 0x1f)
        return SDS_TYPE_5;
    if (string_size <= 0x100)
        return SDS_TYPE_8;
    if (string_size <= 0xffff)
        return SDS_TYPE_16;
    if (string_size <= 0xffffffffULL)
        return SDS_TYPE_32;
    return SDS_TYPE_64;
}
