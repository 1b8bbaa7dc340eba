#define PAGE_SHIFT 12
#define PAGE_SIZE (1U << PAGE_SHIFT)

unsigned int bytes_to_pages(unsigned int bytes) {
    return bytes / PAGE_SIZE + (bytes % PAGE_SIZE != 0);
}
