import static com.google.common.base.Preconditions.checkPositionIndexes;

public class oldV {
    static int subListSize(int[] array, int start, int end) {
        checkPositionIndexes(start, end, array.length);
        return end - start;
    }
}
