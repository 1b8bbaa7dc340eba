public class newV {
    static int mean(int x, int y) {
        return (x + y) >>> 1;
    }
}
