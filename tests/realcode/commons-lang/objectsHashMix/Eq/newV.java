public class newV {
    static int bucket(int key, int capacity) {
        int mask = capacity - 1;
        int h = Hashing.smear(key);
        return mask & h;
    }
}
