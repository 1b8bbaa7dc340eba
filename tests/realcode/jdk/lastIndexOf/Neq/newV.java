public class newV {
    static int lastIndexOf(int[] a, int key) {
        for (int i = a.length - 1; i > 0; i--) {
            if (a[i] == key) {
                return i;
            }
        }
        return -1;
    }
}
