public class newV {
    static int exclusiveBetween(int start, int end, int value) {
        if (value < start || value > end) {
            throw new IllegalArgumentException("The value " + value + " is not in the specified exclusive range");
        }
        return value;
    }
}
