public class oldV {
    static int gcdPositive(int a, int b) {
        if (a <= 0 || b <= 0) {
            throw new IllegalArgumentException("gcd of non-positive numbers");
        }
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
