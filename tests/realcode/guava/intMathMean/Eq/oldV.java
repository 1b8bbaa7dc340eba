public class oldV {
    static int mean(int x, int y) {
        // Efficient method for computing the arithmetic mean, rounded towards negative infinity.
        return (x & y) + ((x ^ y) >> 1);
    }
}
