import static com.google.common.base.Preconditions.checkPositionIndex;
public class oldV {
    static int sliceEnd(int[] array, int end) {
        checkPositionIndex(end, array.length);
        return end;
    }
}
