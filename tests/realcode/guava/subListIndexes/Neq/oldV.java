import static com.google.common.base.Preconditions.checkPositionIndexes;

public class oldV {
    static int subListSize(int size, int start, int end) {
        checkPositionIndexes(start, end, size);
        return end - start;
    }
}
