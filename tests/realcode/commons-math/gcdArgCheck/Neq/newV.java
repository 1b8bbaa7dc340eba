public class newV {
    static int gcdPositive(int a, int b) {
        if (a < 0 || b < 0) {
            throw new IllegalArgumentException("gcd of negative numbers");
        }
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
