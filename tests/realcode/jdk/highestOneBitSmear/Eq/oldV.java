public class oldV {
    static int highestOneBit(int i) {
        return i & (Integer.MIN_VALUE >>> Integer.numberOfLeadingZeros(i));
    }
}
