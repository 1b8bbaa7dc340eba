public class newV {
    static int mean(int x, int y) {
        return (int) Math.floorDiv((long) x + (long) y, 2L);
    }
}
