public class newV {
    static int sliceEnd(int[] array, int end) {
        if (end < 0 || end >= array.length) {
            throw new IndexOutOfBoundsException("end " + end);
        }
        return end;
    }
}
