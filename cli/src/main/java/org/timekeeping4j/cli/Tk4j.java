package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * tk4j: the timekeeping4j command line. One class per command; each returns its exit code.
 *
 * <p>Exit codes: 0 success, 1 a check or operation failed, 2 bad usage (checked before any work), 3 a check was
 * skipped because what it needs is missing, or inconclusive for too few samples (not success), 4 a device or segment named (or the default one) is
 * missing or unusable. Errors print one line on stderr; {@code --verbose} adds the stack trace.
 */
@Command(name = "tk4j",
        mixinStandardHelpOptions = true,
        versionProvider = Tk4j.Version.class,
        description = "Linux timekeeping for the JVM: clocks, counters, checks and benchmarks.%n"
                + "Without a command: which clock paths this machine can use, how fast each is against the JDK and "
                + "whether all are correct (a short info, bench and verify, about 10 s).%n"
                + "Exit codes: 0 success, 1 a check failed, 2 bad usage, 3 not passed: a check was skipped (capture "
                + "without a hardware counter) or inconclusive (verify: too few samples), 4 a device is missing or "
                + "unusable (phc, pps, bounds, vmclock).",
        subcommands = {InfoCommand.class, VerifyCommand.class, BenchCommand.class, CaptureCommand.class,
                PhcCommand.class, PpsCommand.class,
                BoundsCommand.class, VmClockCommand.class, CommandLine.HelpCommand.class})
public final class Tk4j implements Callable<Integer> {

    /** A check or operation failed. */
    public static final int EXIT_FAILED = 1;
    /** The command line was wrong. */
    public static final int EXIT_USAGE = 2;
    /** A check could not run here (what it needs is missing) or had too few samples to pass or fail: not success. */
    public static final int EXIT_SKIPPED = 3;
    /** A device or segment (PTP clock, PPS source, ClockBound segment) is missing or unusable. */
    public static final int EXIT_UNAVAILABLE = 4;

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Print stack traces with errors, and the long descriptions.")
    boolean verbose;

    @Option(names = "--width", scope = CommandLine.ScopeType.INHERIT, paramLabel = "COLUMNS",
            description = "Columns every line fits, " + Terminal.MIN + " to " + Terminal.MAX + ". Default: the "
                    + "terminal's ($COLUMNS, or stty on a terminal), else " + Terminal.DEFAULT + ".")
    Integer width;

    /** The columns this run prints in ({@link Terminal#width(String[], Terminal.Source)}), set before it runs. */
    int columns = Terminal.DEFAULT;

    @Option(names = "--json", description = "Without a command: print one JSON object (info, bench, verify) "
            + "instead of the screen.")
    boolean json;

    @Option(names = "--budget", hidden = true, defaultValue = "10", paramLabel = "SECONDS",
            description = "Seconds the main job (no command) spends measuring and verifying; tests shorten it.")
    double budget;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // No command given: the main job.
        Validate.seconds(spec, "--budget", budget, 0, false, Validate.MAX_RUN_SECONDS);
        return new MainJob(spec.commandLine().getOut(), spec.commandLine().getErr(), budget, columns, verbose)
                .run(json);
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs tk4j with the given writers, as wide as the terminal says. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(Terminal.Source.environment(), out, err, args);
    }

    /** Runs tk4j with the given writers and terminal: the harness that tests use. */
    static int run(Terminal.Source terminal, PrintWriter out, PrintWriter err, String... args) {
        Tk4j root = new Tk4j();
        // The library warns of a bad property and uses its default; a command line refuses it instead.
        java.util.List<String> bad = org.timekeeping4j.config.Configuration.read(System.getProperties()).errors();
        if (!bad.isEmpty()) {
            err.println("tk4j: " + bad.get(0));
            err.flush();
            return EXIT_USAGE;
        }
        try {
            root.columns = Terminal.width(args, terminal);
        } catch (IllegalArgumentException e) {
            err.println("tk4j: " + e.getMessage());
            err.flush();
            return EXIT_USAGE;
        }
        CommandLine cl = new CommandLine(root);
        cl.setUsageHelpWidth(root.columns);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(t -> EXIT_FAILED);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            commandLine.getErr().println(errorLine(oneLine(ex), null, root.columns));
            if (isVerbose(parseResult)) {
                ex.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            return isDeviceProblem(ex) ? EXIT_UNAVAILABLE : EXIT_FAILED;
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            String message = plain(ex.getMessage());
            if (ex.getArgSpec() instanceof CommandLine.Model.OptionSpec o && o.names().length > 1) {
                // "-n/--iterations '-1': ...": the option under the name the user may have typed too.
                message = message.replaceFirst("^" + java.util.regex.Pattern.quote(o.longestName()) + " ",
                        Validate.named(o) + " ");
            }
            c.getErr().println(errorLine(message + didYouMean(ex), c.getCommandSpec().qualifiedName(), root.columns));
            c.getErr().flush();
            return EXIT_USAGE;
        });
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /**
     * One error line that fits {@code width}: "tk4j: " and the message, with "(see 'tk4j verify --help')" where
     * {@code command} is given and the line has room; folded only where the message alone is too long (a long path).
     */
    static String errorLine(String message, String command, int width) {
        String line = "tk4j: " + message;
        String withHelp = command == null ? line : line + " (see '" + command + " --help')";
        return withHelp.length() <= width ? withHelp : line.length() <= width ? line
                : org.timekeeping4j.cli.text.Fold.text(line, width, "  ");
    }

    /**
     * picocli's messages in tk4j's words, shorter: "Invalid value for option '--clock' (CLOCK): '99' is not ..."
     * becomes "--clock '99': not ...", "'abc' is not a double" "... not a number", "Unknown options: '--x', '1'"
     * "unknown option '--x'", "Unmatched argument at index 0: 'verfy'" "unexpected argument 'verfy'".
     */
    static String plain(String message) {
        String m = message.replaceFirst("^Invalid value for option '([^']+)'(?: \\([^)]*\\))?: '([^']*)' (?:is )?",
                "$1 '$2': ").replaceFirst("^Invalid value for option '([^']+)'(?: \\([^)]*\\))?: ", "$1: ");
        m = m.replaceFirst(": not an? (double|float|int|long)$", ": not a number");
        m = m.replaceFirst("^Unknown options?: ('[^']*')(, .*)?$", "unknown option $1");
        m = m.replaceFirst("^Unmatched arguments? (?:at|from) index \\d+: ('[^']*')(, .*)?$", "unexpected argument $1");
        return m;
    }

    /**
     * "; did you mean 'verify'?" for a mistyped command or option within two edits of a real one (and of less
     * than half its length), else "".
     */
    static String didYouMean(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
            return "";
        }
        String typed = u.getUnmatched().get(0);
        String word = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        CommandLine.Model.CommandSpec spec = ex.getCommandLine().getCommandSpec();
        List<String> names = word.startsWith("-")
                ? spec.options().stream().flatMap(o -> java.util.Arrays.stream(o.names())).toList()
                : List.copyOf(spec.subcommands().keySet());
        List<String> close = names.stream().distinct()
                .filter(n -> { int d = editDistance(word, n); return d <= 2 && d * 2 < n.length(); })
                .sorted(java.util.Comparator.comparingInt(n -> editDistance(word, n))).limit(3).toList();
        return close.isEmpty() ? ""
                : "; did you mean " + String.join(" or ", close.stream().map(c -> "'" + c + "'").toList()) + "?";
    }

    /** Levenshtein distance. */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** A device that cannot be opened or used (its open or an ioctl refused, a malformed segment). */
    private static boolean isDeviceProblem(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof org.timekeeping4j.device.DeviceException) {
                return true;
            }
        }
        return false;
    }

    private static boolean isVerbose(CommandLine.ParseResult parseResult) {
        for (CommandLine.ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /** The exception's message on one line, with the innermost useful cause. */
    static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getMessage() == null) {
            root = root.getCause();
        }
        String message = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return message.replace('\n', ' ');
    }

    /** The version from the jar's build. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = Tk4j.class.getResourceAsStream("/tk4j-version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // fall through to "unknown"
            }
            return new String[] {
                "tk4j " + p.getProperty("version", "unknown"),
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch")
            };
        }
    }
}
