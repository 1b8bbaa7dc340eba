public class newV {
    static int get(int index, int size) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index (" + index + ") must be less than size (" + size + ")");
        }
        return size - 1 - index;
    }
}
