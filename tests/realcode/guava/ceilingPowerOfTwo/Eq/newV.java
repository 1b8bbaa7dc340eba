public class newV {
    static final int MAX_SIGNED_POWER_OF_TWO = 1 << (Integer.SIZE - 2);

    static int ceilingPowerOfTwo(int x) {
        checkPositive("x", x);
        if (x > MAX_SIGNED_POWER_OF_TWO) {
            throw new ArithmeticException("ceilingPowerOfTwo(" + x + ") not representable as an int");
        }
        return 1 << -Integer.numberOfLeadingZeros(x - 1);
    }

    static int checkPositive(String role, int x) {
        if (x <= 0) {
            throw new IllegalArgumentException(role + " (" + x + ") must be > 0");
        }
        return x;
    }
}
