public class newV {
    static int divide(int numerator, int denominator) {
        if (denominator == 0) {
            return 0;
        }
        return numerator / denominator;
    }
}
