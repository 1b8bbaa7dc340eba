public class newV {
    static int max(int a, int b, int c) {
        return Math.max(Math.max(a, b), c);
    }
}
