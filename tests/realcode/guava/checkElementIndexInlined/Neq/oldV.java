import static com.google.common.base.Preconditions.checkElementIndex;

public class oldV {
    static int get(int index, int size) {
        checkElementIndex(index, size);
        return size - 1 - index;
    }
}
