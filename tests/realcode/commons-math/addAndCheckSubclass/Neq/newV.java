public class newV {
    static class MathArithmeticException extends ArithmeticException {
        MathArithmeticException(String message) {
            super(message);
        }
    }

    static int addAndCheck(int x, int y) {
        return Math.addExact(x, y);
    }
}
