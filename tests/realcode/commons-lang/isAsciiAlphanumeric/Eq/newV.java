public class newV {
    static boolean isAscii(char ch) {
        return ch < 128;
    }

    static boolean isAsciiAlphanumeric(char ch) {
        return isAscii(ch) && Character.isLetterOrDigit(ch);
    }
}
