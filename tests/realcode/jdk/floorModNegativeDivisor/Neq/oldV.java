public class oldV {
    static int floorMod(int x, int y) {
        return Math.floorMod(x, y);
    }
}
