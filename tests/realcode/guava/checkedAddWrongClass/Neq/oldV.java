public class oldV {
    static int checkedAdd(int a, int b) {
        long result = (long) a + b;
        if (result != (int) result) {
            throw new ArithmeticException("overflow");
        }
        return (int) result;
    }
}
