public class newV {
    static int saturatedCast(long value) {
        return (int) Math.max(Math.min(value, Integer.MAX_VALUE), Integer.MIN_VALUE);
    }
}
