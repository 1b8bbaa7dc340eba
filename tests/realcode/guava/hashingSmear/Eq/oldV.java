public class oldV {
    private static final long C1 = 0xcc9e2d51;
    private static final long C2 = 0x1b873593;

    static int smear(int hashCode) {
        return (int) (C2 * Integer.rotateLeft((int) (hashCode * C1), 15));
    }
}
