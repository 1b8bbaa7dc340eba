public class oldV {
    static final int MAX_SIGNED_POWER_OF_TWO = 1 << (Integer.SIZE - 2);

    static int ceilingPowerOfTwo(int x) {
        if (x <= 0) {
            throw new IllegalArgumentException("x (" + x + ") must be > 0");
        }
        if (x > MAX_SIGNED_POWER_OF_TWO) {
            throw new ArithmeticException("ceilingPowerOfTwo(" + x + ") not representable as an int");
        }
        int p = 1;
        while (p < x) {
            p <<= 1;
        }
        return p;
    }
}
