public class oldV {
    static class MathArithmeticException extends ArithmeticException {
        MathArithmeticException(String message) {
            super(message);
        }
    }

    static int addAndCheck(int x, int y) {
        long s = (long) x + (long) y;
        if (s < Integer.MIN_VALUE || s > Integer.MAX_VALUE) {
            throw new MathArithmeticException("overflow in addition: " + x + " + " + y);
        }
        return (int) s;
    }
}
