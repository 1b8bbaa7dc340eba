#include <stdio.h>
#include <stdlib.h>

#define CONFIG_DEFAULT_DBNUM 16

int parseDbIndex(long long id) {
    if (id < 0 || id >= CONFIG_DEFAULT_DBNUM) {
        fprintf(stderr, "FATAL: invalid DB index %lld\n", id);
        exit(1);
    }
    return (int)id;
}
