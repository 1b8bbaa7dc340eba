public class oldV {
    static int bucket(int key, int capacity) {
        int h = Hashing.smear(key);
        return h & (capacity - 1);
    }
}
