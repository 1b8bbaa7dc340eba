public class newV {
    static int subListSize(int[] array, int start, int end) {
        if (end > array.length || start < 0 || end < start) {
            throw new IndexOutOfBoundsException("start " + start + ", end " + end + ", size " + array.length);
        }
        return end - start;
    }
}
