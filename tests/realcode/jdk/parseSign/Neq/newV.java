public class newV {
    static int signOf(int x) {
        return x >= 0 ? 1 : -1;
    }
}
