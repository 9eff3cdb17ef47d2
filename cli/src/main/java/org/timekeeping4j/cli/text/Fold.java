package org.timekeeping4j.cli.text;

import java.util.ArrayList;
import java.util.List;

/** Lines of prose folded to a terminal's width: what every verb's human output does with a line too long. */
public final class Fold {

    private Fold() {}

    /**
     * {@code line} folded at blanks into lines of at most {@code width} columns, the later ones starting with
     * {@code indent}; a word longer than a line stays whole on a line of its own.
     */
    public static List<String> lines(String line, int width, String indent) {
        List<String> lines = new ArrayList<>();
        String rest = line;
        String prefix = "";
        while (prefix.length() + rest.length() > width) {
            int room = width - prefix.length();
            int cut = rest.lastIndexOf(' ', room);
            if (cut <= 0 || rest.substring(0, cut).isBlank()) {
                cut = rest.indexOf(' ', Math.max(room, firstNonBlank(rest)));
                if (cut < 0) {
                    break;
                }
            }
            lines.add(prefix + rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut + 1).stripLeading();
            prefix = indent;
        }
        lines.add(prefix + rest);
        return lines;
    }

    /** {@link #lines}, joined with line separators, for one println. */
    public static String text(String line, int width, String indent) {
        return String.join(System.lineSeparator(), lines(line, width, indent));
    }

    /** {@link #text} with {@code indent} blanks. */
    public static String text(String line, int width, int indent) {
        return text(line, width, " ".repeat(indent));
    }

    private static int firstNonBlank(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) == ' ') {
            i++;
        }
        return i;
    }
}
