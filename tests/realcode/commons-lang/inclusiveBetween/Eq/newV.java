public class newV {
    static int inclusiveBetween(int start, int end, int value) {
        if (value < start) {
            throw new IllegalArgumentException("value below range: " + value);
        }
        if (value > end) {
            throw new IllegalArgumentException("value above range: " + value);
        }
        return value;
    }
}
