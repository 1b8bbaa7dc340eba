public class oldV {
    static int hash(int[] values) {
        int result = 1;
        for (int i = 0; i < values.length; i++) {
            result = 31 * result + values[i];
        }
        return result;
    }
}
