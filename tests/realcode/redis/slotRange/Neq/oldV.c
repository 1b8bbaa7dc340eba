#define CLUSTER_SLOTS 16384

int getSlot(long long slot) {
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        return -1;
    }
    return (int)slot;
}
