public class newV {
    static int hash(int[] values) {
        int result = 1;
        for (int v : values) {
            result = result * 31 + v;
        }
        return result;
    }
}
