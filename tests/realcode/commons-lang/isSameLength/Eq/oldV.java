public class oldV {
    static int getLength(int[] array) {
        if (array == null) {
            return 0;
        }
        return array.length;
    }

    static boolean isSameLength(int[] array1, int[] array2) {
        return getLength(array1) == getLength(array2);
    }
}
