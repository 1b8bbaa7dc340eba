public class newV {
    static int checkedAdd(int a, int b) {
        long result = (long) a + b;
        if (result != (int) result) {
            throw new IllegalArgumentException("overflow");
        }
        return (int) result;
    }
}
