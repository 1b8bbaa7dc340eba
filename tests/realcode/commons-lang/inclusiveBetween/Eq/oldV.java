public class oldV {
    static int inclusiveBetween(int start, int end, int value) {
        if (value < start || value > end) {
            throw new IllegalArgumentException("The value " + value + " is not in the specified inclusive range of " + start + " to " + end);
        }
        return value;
    }
}
