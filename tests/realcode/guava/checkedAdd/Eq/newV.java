public class newV {
    static int checkedAdd(int a, int b) {
        long result = (long) a + b;
        if (result != (int) result) {
            throw new ArithmeticException("overflow: " + a + " + " + b);
        }
        return (int) result;
    }
}
