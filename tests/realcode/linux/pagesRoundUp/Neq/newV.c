#define PAGE_SHIFT 12
#define PAGE_SIZE (1U << PAGE_SHIFT)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

unsigned int bytes_to_pages(unsigned int bytes) {
    return DIV_ROUND_UP(bytes, PAGE_SIZE);
}
