package org.timekeeping4j.cli;

import java.util.Iterator;
import java.util.Map;
import org.timekeeping4j.cli.text.Fold;
import org.timekeeping4j.cli.text.Prose;

/**
 * A minimal JSON serialiser for the CLI's {@code --json} output: maps (insertion-ordered), iterables,
 * strings, numbers, booleans and null. Output is one object per run, pretty-printed with two spaces; a
 * {@link Prose} value is an array of lines that fit the width (a word longer than a line stays whole).
 */
final class Json {

    private Json() {}

    /** {@code value} as JSON whose lines fit {@code width} columns (its prose folded). */
    static String write(Object value, int width) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0, width);
        return sb.toString();
    }

    /** A record's components by name, in declaration order (enums and other objects as their string). */
    static Map<String, Object> fields(Record r) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (java.lang.reflect.RecordComponent c : r.getClass().getRecordComponents()) {
            try {
                Object v = c.getAccessor().invoke(r);
                m.put(c.getName(), v instanceof Number || v instanceof Boolean || v == null ? v : String.valueOf(v));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + c, e);
            }
        }
        return m;
    }

    private static void write(StringBuilder sb, Object v, int depth, int width) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            quote(sb, s);
        } else if (v instanceof Prose p) {
            // Each line: indent, two quotes and a comma around the piece.
            int room = Math.max(20, width - 2 * (depth + 1) - 3);
            write(sb, Fold.lines(p.text(), room, ""), depth, width);
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            sb.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                indent(sb, depth + 1);
                quote(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), depth + 1, width);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            if (!m.isEmpty()) {
                indent(sb, depth);
            }
            sb.append('}');
        } else if (v instanceof Iterable<?> list) {
            sb.append('[');
            Iterator<?> it = list.iterator();
            boolean any = it.hasNext();
            while (it.hasNext()) {
                indent(sb, depth + 1);
                write(sb, it.next(), depth + 1, width);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            if (any) {
                indent(sb, depth);
            }
            sb.append(']');
        } else {
            quote(sb, v.toString());
        }
    }

    private static void indent(StringBuilder sb, int depth) {
        sb.append('\n').append("  ".repeat(depth));
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
