package org.timekeeping4j.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.timekeeping4j.cli.text.Fold;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How many columns every line tk4j prints fits (human output, errors and {@code --json}): {@code --width N} when
 * given, else the terminal's width where it says one ($COLUMNS, or {@code stty size} when stdout is a terminal),
 * else {@value #DEFAULT}. Never under {@value #MIN}: the tables' narrowest layout; a terminal narrower than that
 * gets {@value #MIN}-column lines.
 */
final class Terminal {

    /** The columns every verb's output fits by default. */
    static final int DEFAULT = 80;
    /** The narrowest width: the tables' narrowest layout, a terminal's classic width. */
    static final int MIN = DEFAULT;
    /** The widest {@code --width}: past it a line is no longer read as one. */
    static final int MAX = 1000;

    /** What the terminal says of its width, if anything. */
    @FunctionalInterface
    interface Source {
        OptionalInt columns();

        /** Nothing: tests, and output that is no terminal's. */
        Source NONE = OptionalInt::empty;

        /** $COLUMNS when the shell exports it, else {@code stty size} when stdout is a terminal. */
        static Source environment() {
            Source variables = of(System.getenv());
            return () -> {
                OptionalInt env = variables.columns();
                if (env.isPresent()) {
                    return env;
                }
                java.io.Console console = System.console();
                return console != null && console.isTerminal() ? stty() : OptionalInt.empty();
            };
        }
    }

    private Terminal() {}

    /**
     * The width for {@code args}: {@code --width N} ({@value #MIN}..{@value #MAX}) when given, else the terminal's
     * when it says one (at least {@value #MIN}, at most {@value #MAX}), else {@value #DEFAULT}.
     *
     * @throws IllegalArgumentException for a {@code --width} that is no number in range, one line naming it
     */
    static int width(String[] args, Source terminal) {
        String given = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            if (args[i].equals("--width")) {
                given = i + 1 < args.length ? args[i + 1] : "";
            } else if (args[i].startsWith("--width=")) {
                given = args[i].substring("--width=".length());
            }
        }
        if (given != null) {
            OptionalInt n = parse(given);
            if (n.isEmpty() || n.getAsInt() < MIN || n.getAsInt() > MAX) {
                throw new IllegalArgumentException("--width '" + given + "': give " + MIN + " to " + MAX + " columns");
            }
            return n.getAsInt();
        }
        OptionalInt said = terminal.columns();
        return said.isPresent() && said.getAsInt() > 0 ? Math.clamp(said.getAsInt(), MIN, MAX) : DEFAULT;
    }

    /** The width the command {@code spec} belongs to prints in (its root's, set by {@link Tk4j#run}). */
    static int width(CommandSpec spec) {
        return spec.root().userObject() instanceof Tk4j t ? t.columns : DEFAULT;
    }

    static OptionalInt parse(String s) {
        if (s == null || !s.trim().matches("\\d{1,6}")) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(s.trim()));
    }

    /** {@code stty size} on the controlling terminal: "ROWS COLUMNS". */
    private static OptionalInt stty() {
        try {
            Process p = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (!p.waitFor(1, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return OptionalInt.empty();
            }
            String[] parts = out.split("\\s+");
            return parts.length == 2 ? parse(parts[1]) : OptionalInt.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        }
    }

    /** {@link Fold#text}. */
    static String folded(String line, int width, String indent) {
        return Fold.text(line, width, indent);
    }

    /** What the environment's variables say: $COLUMNS, when the shell exports it. */
    static Source of(Map<String, String> env) {
        return () -> parse(env.get("COLUMNS"));
    }
}
