public class newV {
    static boolean isSameLength(int[] array1, int[] array2) {
        int n1 = array1 == null ? 0 : array1.length;
        int n2 = array2 == null ? 0 : array2.length;
        return n1 == n2;
    }
}
