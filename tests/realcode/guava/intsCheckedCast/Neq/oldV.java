public class oldV {
    static int checkedCast(long value) {
        int result = (int) value;
        if (result != value) {
            throw new IllegalArgumentException("Out of range: " + value);
        }
        return result;
    }
}
