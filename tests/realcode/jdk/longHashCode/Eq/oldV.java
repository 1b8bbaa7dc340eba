public class oldV {
    static int hashCode(long value) {
        return (int) (value ^ (value >>> 32));
    }
}
