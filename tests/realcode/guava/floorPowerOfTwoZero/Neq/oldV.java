public class oldV {
    static int floorPowerOfTwo(int x) {
        checkPositive("x", x);
        return Integer.highestOneBit(x);
    }

    static int checkPositive(String role, int x) {
        if (x <= 0) {
            throw new IllegalArgumentException(role + " (" + x + ") must be > 0");
        }
        return x;
    }
}
