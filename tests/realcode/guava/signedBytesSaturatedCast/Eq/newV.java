public class newV {
    static byte saturatedCast(long value) {
        return (byte) Math.max(Byte.MIN_VALUE, Math.min(Byte.MAX_VALUE, value));
    }
}
