public class newV {
    static boolean isPowerOfTwo(int x) {
        return x > 0 && Integer.bitCount(x) == 1;
    }
}
