public class newV {
    static char checkedCast(long value) {
        if (value < Character.MIN_VALUE || value > Character.MAX_VALUE) {
            throw new IllegalArgumentException("Out of range: " + value);
        }
        return (char) value;
    }
}
