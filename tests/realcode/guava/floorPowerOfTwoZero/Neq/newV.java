public class newV {
    static int floorPowerOfTwo(int x) {
        if (x < 0) {
            throw new IllegalArgumentException("x (" + x + ") must be > 0");
        }
        return 1 << ((Integer.SIZE - 1) - Integer.numberOfLeadingZeros(x));
    }
}
