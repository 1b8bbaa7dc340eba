import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs methods of one compiled release by reflection, one call per stdin line,
 * and prints one record per call (used by tests/history/confirm.py).
 *
 * <p>Input: tab-separated {@code key=value} fields:
 * {@code id}, {@code class} (binary name), {@code method}, {@code params}
 * (parameter types' simple names, {@code ;}-separated, {@code ?} for a type
 * variable), then in any order {@code arg=VALUE} (positional), {@code
 * set=NAME=VALUE} (a field's entry value), {@code show=NAME} (a field whose
 * final value is printed). Values are written as eqlens prints them
 * ({@code 3}, {@code -1.5E10}, {@code NaN}, {@code true}, {@code {1, 2}},
 * {@code null}), plus {@code @{f=V, g=W}} for an object given by its fields.
 * A field NAME is {@code f} (searched in the method's class, its enclosing
 * classes, then every class of the file) or {@code Class.f}.
 *
 * <p>Output, tab-separated: the id, the outcome ({@code ret=V},
 * {@code throw=SimpleClassName} or {@code limit=WHY} when the run reached
 * code that stands in for classes outside the corpus, or the class could not
 * be initialised, or the run exceeded the time limit), {@code argN=V} for
 * each array or object argument after the call, {@code field:NAME=V} per
 * shown field ({@code field:NAME=unchanged:V} when the call did not change
 * it, {@code field:NAME=absent} when the release has no such field), {@code
 * final:NAME=V} for a static final field given a value by {@code set} (such
 * a field is fixed when its class is initialised: it is not set, its value is
 * printed), {@code unset:NAME=} for a {@code set} naming no field of this
 * release, {@code untyped:NAME=TYPE} for one whose value does not fit the
 * field's type here (not set), and
 * {@code out=TEXT} (what the method printed, escaped). Floating values are
 * printed widened to double ({@code Double.toString}), so that a float and a
 * double holding the same number print alike.
 *
 * <p>After a call that does not finish within the time limit (first program
 * argument, milliseconds) the record is printed and the JVM halts; the caller
 * restarts it for the remaining lines.
 */
public final class EqReplay {
    private EqReplay() {}

    /** Thrown by the stand-ins for missing code (see confirm.py's stubs). */
    static boolean isStandIn(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String n = c.getClass().getName();
            if (n.equals("eqstub.EqErased") || n.equals("eqstub.EqStubCalled")) return true;
        }
        return false;
    }

    static String standInMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String n = c.getClass().getName();
            if (n.equals("eqstub.EqErased")) {
                return "reached code that needs classes outside the corpus (" + c.getMessage() + ")";
            }
            if (n.equals("eqstub.EqStubCalled")) {
                return "called a stand-in for a class outside the corpus (" + c.getMessage() + ")";
            }
        }
        return String.valueOf(t);
    }

    // ------------------------------------------------------------------
    // Values

    static final class Parser {
        final String s;
        int i;

        Parser(String s) { this.s = s; }

        void ws() { while (i < s.length() && s.charAt(i) == ' ') i++; }

        /** The next value as a tree: String (scalar text), List (array), Map (object), or null. */
        Object value() {
            ws();
            if (s.startsWith("@{", i)) {
                i += 2;
                Map<String, Object> m = new LinkedHashMap<>();
                ws();
                if (i < s.length() && s.charAt(i) == '}') { i++; return m; }
                while (true) {
                    ws();
                    int eq = s.indexOf('=', i);
                    String name = s.substring(i, eq).trim();
                    i = eq + 1;
                    m.put(name, value());
                    ws();
                    char c = s.charAt(i++);
                    if (c == '}') return m;
                    if (c != ',') throw new IllegalArgumentException("bad object value: " + s);
                }
            }
            if (i < s.length() && s.charAt(i) == '{') {
                i++;
                List<Object> items = new ArrayList<>();
                ws();
                if (i < s.length() && s.charAt(i) == '}') { i++; return items; }
                while (true) {
                    items.add(value());
                    ws();
                    char c = s.charAt(i++);
                    if (c == '}') return items;
                    if (c != ',') throw new IllegalArgumentException("bad array value: " + s);
                }
            }
            if (i < s.length() && s.charAt(i) == '"') return new Text(literal());
            int start = i;
            while (i < s.length() && ",}".indexOf(s.charAt(i)) < 0) i++;
            String text = s.substring(start, i).trim();
            return text.equals("null") ? null : text;
        }

        /** A Java string literal as eqlens prints a String (`"a\\n\\u00e9"`). */
        String literal() {
            StringBuilder b = new StringBuilder();
            i++;
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }
    }

    /** A String value (a literal), told apart from a scalar's text. */
    static final class Text {
        final String value;

        Text(String value) { this.value = value; }
    }

    static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.ws();
        if (p.i != text.length()) throw new IllegalArgumentException("trailing text in value: " + text);
        return v;
    }

    static Object convert(Object tree, Class<?> type) throws Exception {
        if (tree == null) {
            if (type.isPrimitive()) throw new IllegalArgumentException("null for a " + type);
            return null;
        }
        if (type.isArray()) {
            if (!(tree instanceof List)) throw new IllegalArgumentException("not an array: " + tree);
            List<?> items = (List<?>) tree;
            Object a = Array.newInstance(type.getComponentType(), items.size());
            for (int k = 0; k < items.size(); k++) Array.set(a, k, convert(items.get(k), type.getComponentType()));
            return a;
        }
        if (tree instanceof Map) {
            Object o = allocate(type);
            for (Map.Entry<?, ?> e : ((Map<?, ?>) tree).entrySet()) {
                Field f = instanceField(type, (String) e.getKey());
                if (f == null) throw new IllegalArgumentException("no field " + e.getKey() + " in " + type.getName());
                f.setAccessible(true);
                f.set(o, convert(e.getValue(), f.getType()));
            }
            return o;
        }
        if (tree instanceof Text) {
            if (type == String.class) return ((Text) tree).value;
            throw new IllegalArgumentException("a String value for a " + type.getName());
        }
        String t = (String) tree;
        if (type == int.class || type == Integer.class) return (int) Long.parseLong(t);
        if (type == long.class || type == Long.class) return Long.parseLong(t);
        if (type == short.class || type == Short.class) return (short) Long.parseLong(t);
        if (type == byte.class || type == Byte.class) return (byte) Long.parseLong(t);
        if (type == char.class || type == Character.class) return (char) Long.parseLong(t);
        if (type == boolean.class || type == Boolean.class) return Boolean.parseBoolean(t);
        if (type == double.class || type == Double.class) return Double.parseDouble(t);
        if (type == float.class || type == Float.class) return Float.parseFloat(t);
        if (type == String.class) return t;
        throw new IllegalArgumentException("cannot make a " + type.getName() + " from " + t);
    }

    /** A default for a parameter eqlens gave no value (any value shows the difference). */
    static Object anyValue(Class<?> type) {
        if (type == boolean.class) return false;
        if (type == char.class) return (char) 0;
        if (type == float.class) return 0f;
        if (type == double.class) return 0d;
        if (type == long.class) return 0L;
        if (type == int.class) return 0;
        if (type == short.class) return (short) 0;
        if (type == byte.class) return (byte) 0;
        if (type == String.class) return "";
        return null;
    }

    static Object unsafe;

    static Object allocate(Class<?> type) throws Exception {
        if (unsafe == null) {
            Class<?> u = Class.forName("sun.misc.Unsafe");
            Field f = u.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
        }
        // An object whose fields are all given: no constructor runs, so the
        // fields keep exactly the values set (Java default values otherwise).
        return unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, type);
    }

    static Field instanceField(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                if (!Modifier.isStatic(f.getModifiers())) return f;
            } catch (NoSuchFieldException e) {
                // keep looking in the superclass
            }
        }
        return null;
    }

    static String show(Object v, int depth) {
        if (v == null) return "null";
        if (v instanceof Float) return Double.toString((double) (Float) v);
        if (v instanceof Double) return Double.toString((Double) v);
        if (v instanceof Character) return Integer.toString((Character) v);
        if (v instanceof Number || v instanceof Boolean) return v.toString();
        if (v instanceof String) return "\"" + escape((String) v) + "\"";
        if (v.getClass().isArray()) {
            StringBuilder b = new StringBuilder("{");
            int n = Array.getLength(v);
            for (int k = 0; k < n; k++) {
                if (k > 0) b.append(", ");
                b.append(show(Array.get(v, k), depth));
            }
            return b.append('}').toString();
        }
        if (depth > 2) return v.getClass().getSimpleName() + "{…}";
        StringBuilder b = new StringBuilder(v.getClass().getSimpleName()).append('{');
        boolean first = true;
        for (Class<?> c = v.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic()) continue;
                try {
                    f.setAccessible(true);
                    if (!first) b.append(", ");
                    first = false;
                    b.append(f.getName()).append('=').append(show(f.get(v), depth + 1));
                } catch (RuntimeException | IllegalAccessException e) {
                    b.append(f.getName()).append("=?");
                }
            }
        }
        return b.append('}').toString();
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }

    // ------------------------------------------------------------------
    // Classes, methods and fields

    static Class<?> outermost(Class<?> c) {
        while (c.getEnclosingClass() != null) c = c.getEnclosingClass();
        return c;
    }

    static void nested(Class<?> c, List<Class<?>> out) {
        out.add(c);
        for (Class<?> d : c.getDeclaredClasses()) nested(d, out);
    }

    /** The field `name` (`f` or `Class.f`) as the method's file names it. */
    static Field field(Class<?> owner, String name) {
        List<Class<?>> search = new ArrayList<>();
        for (Class<?> c = owner; c != null; c = c.getEnclosingClass()) search.add(c);
        nested(outermost(owner), search);
        String cls = null;
        String f = name;
        int dot = name.lastIndexOf('.');
        if (dot >= 0) {
            cls = name.substring(0, dot);
            f = name.substring(dot + 1);
        }
        for (Class<?> c : search) {
            if (cls != null && !c.getSimpleName().equals(cls)) continue;
            try {
                return c.getDeclaredField(f);
            } catch (NoSuchFieldException e) {
                // not in this class
            }
        }
        return null;
    }

    static boolean typeMatches(Class<?> actual, String wanted) {
        if (wanted.equals("?")) return true;
        String w = wanted;
        Class<?> a = actual;
        while (w.endsWith("[]")) {
            if (!a.isArray()) return false;
            a = a.getComponentType();
            w = w.substring(0, w.length() - 2);
        }
        // A type variable's array (`T[]`) erases to its bound's array.
        return w.equals("?") || a.getSimpleName().equals(w);
    }

    static Method findMethod(Class<?> c, String name, String[] params) {
        Method found = null;
        for (Method m : c.getDeclaredMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() != params.length || m.isBridge()) continue;
            Class<?>[] pt = m.getParameterTypes();
            boolean ok = true;
            for (int k = 0; k < pt.length && ok; k++) ok = typeMatches(pt[k], params[k]);
            if (ok) {
                if (found != null) {
                    throw new IllegalArgumentException("ambiguous method " + name + " in " + c.getName());
                }
                found = m;
            }
        }
        if (found == null) {
            String sig = name + "(" + String.join(", ", params) + ")";
            throw new IllegalArgumentException("no method " + sig + " in " + c.getName());
        }
        return found;
    }

    // ------------------------------------------------------------------

    static final class Call {
        String id, cls, method;
        String[] params = new String[0];
        final List<String> args = new ArrayList<>();
        final List<String[]> sets = new ArrayList<>();
        final List<String> shows = new ArrayList<>();
    }

    static Call parseLine(String line) {
        Call c = new Call();
        for (String tok : line.split("\t", -1)) {
            int eq = tok.indexOf('=');
            String key = tok.substring(0, eq);
            String val = tok.substring(eq + 1);
            switch (key) {
                case "id": c.id = val; break;
                case "class": c.cls = val; break;
                case "method": c.method = val; break;
                case "params": c.params = val.isEmpty() ? new String[0] : val.split(";", -1); break;
                case "arg": c.args.add(val); break;
                case "set": {
                    int e2 = val.indexOf('=');
                    c.sets.add(new String[] {val.substring(0, e2), val.substring(e2 + 1)});
                    break;
                }
                case "show": c.shows.add(val); break;
                default: throw new IllegalArgumentException("unknown key " + key);
            }
        }
        return c;
    }

    /**
     * The receiver of an instance method of {@code owner}, allocated without a
     * constructor; for an inner class, with its enclosing instances allocated
     * and linked ({@code this$0}), so that their fields can be given values.
     * Returns the chain, innermost first.
     */
    static List<Object> receivers(Class<?> owner) throws Exception {
        List<Object> chain = new ArrayList<>();
        Object inner = allocate(owner);
        chain.add(inner);
        Class<?> c = owner;
        while (c.getEnclosingClass() != null && !Modifier.isStatic(c.getModifiers())) {
            Class<?> outer = c.getEnclosingClass();
            Object o = allocate(outer);
            for (Field f : c.getDeclaredFields()) {
                if (f.isSynthetic() && f.getType() == outer) {
                    f.setAccessible(true);
                    f.set(inner, o);
                }
            }
            chain.add(o);
            inner = o;
            c = outer;
        }
        return chain;
    }

    /** The object of `chain` holding instance field f, or null. */
    static Object holder(List<Object> chain, Field f) {
        for (Object o : chain) if (f.getDeclaringClass().isInstance(o)) return o;
        return null;
    }

    /** A shown field's value, or null when this release has no such field. */
    static String fieldValue(Class<?> owner, List<Object> chain, String name) {
        Field f = field(owner, name);
        if (f == null) return null;
        try {
            f.setAccessible(true);
            if (Modifier.isStatic(f.getModifiers())) return show(f.get(null), 0);
            Object o = holder(chain, f);
            return o == null ? null : show(f.get(o), 0);
        } catch (Throwable t) {
            return null;
        }
    }

    static String run(Call call, long timeoutMs, PrintStream realOut, boolean[] timedOut) {
        StringBuilder rec = new StringBuilder(call.id);
        Class<?> owner;
        Method m;
        Object[] args;
        List<Object> chain = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> entry = new LinkedHashMap<>();
        try {
            owner = Class.forName(call.cls, false, EqReplay.class.getClassLoader());
            m = findMethod(owner, call.method, call.params);
            m.setAccessible(true);
            Class<?>[] pt = m.getParameterTypes();
            if (call.args.size() != pt.length) {
                throw new IllegalArgumentException("expected " + pt.length + " arguments");
            }
            args = new Object[pt.length];
            for (int k = 0; k < pt.length; k++) {
                String a = call.args.get(k);
                args[k] = a.equals("(any)") ? anyValue(pt[k]) : convert(parse(a), pt[k]);
            }
            if (!Modifier.isStatic(m.getModifiers())) chain = receivers(owner);
            for (String[] s : call.sets) {
                Field f = field(owner, s[0]);
                if (f == null) {
                    notes.add("unset:" + s[0] + "=");  // a field of the other release only, or of neither
                    continue;
                }
                f.setAccessible(true);
                boolean isStatic = Modifier.isStatic(f.getModifiers());
                if (isStatic && Modifier.isFinal(f.getModifiers())) {
                    // Fixed when the class is initialised: never an input.
                    notes.add("final:" + s[0] + "=" + show(f.get(null), 0));
                    continue;
                }
                Object target = isStatic ? null : holder(chain, f);
                if (!isStatic && target == null) continue;
                Object value;
                try {
                    value = convert(parse(s[1]), f.getType());
                } catch (IllegalArgumentException e) {
                    // A field whose type changed to one eqlens does not model
                    // (an int that became an enum): eqlens's run of this
                    // release cannot have read it.
                    notes.add("untyped:" + s[0] + "=" + f.getType().getSimpleName());
                    continue;
                }
                f.set(target, value);
            }
            for (String name : call.shows) entry.put(name, fieldValue(owner, chain, name));
        } catch (Throwable t) {
            Throwable c = t instanceof ExceptionInInitializerError && t.getCause() != null ? t.getCause() : t;
            if (isStandIn(t)) return rec.append("\tlimit=").append(escape(standInMessage(t))).toString();
            return rec.append("\tlimit=").append(escape("cannot set up the call: " + c)).toString();
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        String[] outcome = new String[1];
        final Object recv = chain.isEmpty() ? null : chain.get(0);
        Thread worker = new Thread(null, () -> {
            PrintStream captured = new PrintStream(buf, true);
            System.setOut(captured);
            try {
                Object r = m.invoke(recv, args);
                outcome[0] = "ret=" + (m.getReturnType() == void.class ? "void" : show(r, 0));
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                if (isStandIn(t)) outcome[0] = "limit=" + escape(standInMessage(t));
                else if (t instanceof ExceptionInInitializerError || t instanceof NoClassDefFoundError)
                    outcome[0] = "limit=" + escape("class initialisation failed: " + t);
                else outcome[0] = "throw=" + t.getClass().getSimpleName();
            } catch (ExceptionInInitializerError | NoClassDefFoundError t) {
                outcome[0] = isStandIn(t) ? "limit=" + escape(standInMessage(t))
                        : "limit=" + escape("class initialisation failed: " + t);
            } catch (Throwable t) {
                outcome[0] = "limit=" + escape(isStandIn(t) ? standInMessage(t) : "cannot call: " + t);
            } finally {
                captured.flush();
                System.setOut(realOut);
            }
        }, "eq-call", 512L << 20);
        worker.setDaemon(true);
        worker.start();
        try {
            worker.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (worker.isAlive()) {
            timedOut[0] = true;
            System.setOut(realOut);
            String why = "did not finish natively within " + timeoutMs + " ms";
            return rec.append("\tlimit=").append(escape(why)).toString();
        }
        rec.append('\t').append(outcome[0]);
        for (int k = 0; k < args.length; k++) {
            if (args[k] != null && !(args[k] instanceof Number) && !(args[k] instanceof Boolean)
                    && !(args[k] instanceof Character) && !(args[k] instanceof String)) {
                rec.append("\targ").append(k).append('=').append(show(args[k], 0));
            }
        }
        for (String name : call.shows) {
            String before = entry.get(name);
            String after = fieldValue(owner, chain, name);
            String v = after == null ? "absent" : after.equals(before) ? "unchanged:" + after : after;
            rec.append("\tfield:").append(name).append('=').append(v);
        }
        for (String n : notes) rec.append('\t').append(n);
        rec.append("\tout=").append(escape(buf.toString()));
        return rec.toString();
    }

    public static void main(String[] argv) throws Exception {
        long timeoutMs = argv.length > 0 ? Long.parseLong(argv[0]) : 10000;
        PrintStream realOut = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            boolean[] timedOut = {false};
            String rec;
            try {
                rec = run(parseLine(line), timeoutMs, realOut, timedOut);
            } catch (RuntimeException e) {
                rec = line.split("\t", 2)[0].replaceFirst("^id=", "") + "\tlimit=" + escape("bad request: " + e);
            }
            realOut.println(rec);
            realOut.flush();
            if (timedOut[0]) Runtime.getRuntime().halt(3);
        }
    }
}
