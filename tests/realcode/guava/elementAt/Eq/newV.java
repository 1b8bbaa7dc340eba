public class newV {
    static int elementAt(int[] array, int index) {
        if (index < 0 || index >= array.length) {
            throw new IndexOutOfBoundsException("index (" + index + ") must be less than size (" + array.length + ")");
        }
        return array[index];
    }
}
