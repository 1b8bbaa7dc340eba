public class newV {
    static boolean toBoolean(int value, int trueValue, int falseValue) {
        if (value == falseValue) {
            return false;
        }
        if (value != trueValue) {
            throw new IllegalArgumentException("The Integer did not match either specified value");
        }
        return true;
    }
}
