public class newV {
    static int digitValue(char c) {
        int d = c - '0';
        return (d >= 0 && d < 10) ? d : -1;
    }
}
