public class newV {
    static final int INDEX_NOT_FOUND = -1;

    static int indexOf(int[] array, int valueToFind, int startIndex) {
        if (array == null) {
            return INDEX_NOT_FOUND;
        }
        for (int i = startIndex; i < array.length; i++) {
            if (array[i] == valueToFind) {
                return i;
            }
        }
        return INDEX_NOT_FOUND;
    }
}
