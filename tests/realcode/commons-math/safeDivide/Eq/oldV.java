public class oldV {
    static int divide(int numerator, int denominator) {
        try {
            return numerator / denominator;
        } catch (ArithmeticException e) {
            return 0;
        }
    }
}
