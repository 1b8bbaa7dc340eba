public class newV {
    static int hashCode(long value) {
        int lo = (int) value;
        int hi = (int) (value >>> 32);
        return hi ^ lo;
    }
}
