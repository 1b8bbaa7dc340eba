public class newV {
    static int checkedCast(long value) {
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
            throw new ArithmeticException("Out of range: " + value);
        }
        return (int) value;
    }
}
