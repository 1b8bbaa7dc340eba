public class newV {
    static int sumRange(int[] a, int fromIndex, int toIndex) {
        int length = a.length;
        if (fromIndex < 0 || fromIndex > toIndex || toIndex > length) {
            throw new IndexOutOfBoundsException("Range [" + fromIndex + ", " + toIndex + ") out of bounds for length " + length);
        }
        int sum = 0;
        for (int i = toIndex - 1; i >= fromIndex; i--) {
            sum += a[i];
        }
        return sum;
    }
}
