public class newV {
    static int subListSize(int size, int start, int end) {
        if (end > size || start < 0 || end < start) {
            throw new IndexOutOfBoundsException("start " + start + ", end " + end + ", size " + size);
        }
        return end - start;
    }
}
