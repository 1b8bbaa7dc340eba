public class newV {
    static int compare(byte a, byte b) {
        return a - b;
    }
}
