import static com.google.common.base.Preconditions.checkElementIndex;
public class oldV {
    static int elementAt(int[] array, int index) {
        checkElementIndex(index, array.length);
        return array[index];
    }
}
