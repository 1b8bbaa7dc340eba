public class oldV {
    static int signum(int i) {
        return (i >> 31) | (-i >>> 31);
    }
}
