public class oldV {
    static boolean isAsciiAlphaUpper(char ch) {
        return ch >= 'A' && ch <= 'Z';
    }

    static boolean isAsciiAlphaLower(char ch) {
        return ch >= 'a' && ch <= 'z';
    }

    static boolean isAsciiNumeric(char ch) {
        return ch >= '0' && ch <= '9';
    }

    static boolean isAsciiAlphanumeric(char ch) {
        return isAsciiAlphaUpper(ch) || isAsciiAlphaLower(ch) || isAsciiNumeric(ch);
    }
}
