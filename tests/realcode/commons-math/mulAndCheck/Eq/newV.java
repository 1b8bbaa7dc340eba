public class newV {
    static int mulAndCheck(int x, int y) {
        return Math.multiplyExact(x, y);
    }
}
