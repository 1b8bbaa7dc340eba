public class newV {
    static int absExact(int x) {
        return Math.abs(x);
    }
}
