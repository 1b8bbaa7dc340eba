public class oldV {
    static final int UNSIGNED_MASK = 0xFF;

    static int toInt(byte value) {
        return value & UNSIGNED_MASK;
    }

    static int compare(byte a, byte b) {
        return toInt(a) - toInt(b);
    }
}
