public class oldV {
    static long factorial(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("must have n >= 0 for n!, got n = " + n);
        }
        if (n > 20) {
            throw new ArithmeticException("factorial overflows a long: n = " + n);
        }
        long result = 1;
        for (int i = 2; i <= n; i++) {
            result *= i;
        }
        return result;
    }
}
