public class newV {
    static int smear(int hashCode) {
        int k = hashCode * 0xcc9e2d51;
        k = (k << 15) | (k >>> 17);
        return k * 0x1b873593;
    }
}
