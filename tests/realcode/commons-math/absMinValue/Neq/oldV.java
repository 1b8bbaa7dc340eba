public class oldV {
    static int absExact(int x) {
        if (x == Integer.MIN_VALUE) {
            throw new ArithmeticException("absolute value of " + x + " overflows an int");
        }
        return x < 0 ? -x : x;
    }
}
