import static com.google.common.base.Preconditions.checkArgument;

public class oldV {
    static char checkedCast(long value) {
        char result = (char) value;
        checkArgument(result == value, "Out of range: %s", value);
        return result;
    }
}
