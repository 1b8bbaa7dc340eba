import java.util.Objects;

public class oldV {
    static int sumRange(int[] a, int fromIndex, int toIndex) {
        Objects.requireNonNull(a);
        Objects.checkFromToIndex(fromIndex, toIndex, a.length);
        int sum = 0;
        for (int i = fromIndex; i < toIndex; i++) {
            sum += a[i];
        }
        return sum;
    }
}
