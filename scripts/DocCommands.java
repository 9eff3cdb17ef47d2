import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.timekeeping4j.cli.Tk4j;
import picocli.CommandLine;

/**
 * scripts/doc-commands.sh's checker: the commands in README.md, CONTRIBUTING.md and docs/*.md work as written on a
 * machine whose default java is older than 25, so they cannot drift. Run from the repository's root after a build
 * ({@code mvn -B verify} builds every jar): {@code scripts/java25 -cp cli/target/tk4j.jar scripts/DocCommands.java}.
 *
 * <p>What each command gets (in code blocks and inline code alike; {@code a && b} is two commands):
 * <ul>
 * <li>a bare {@code java} or {@code javac}: refused (it would be the machine's default, 17 here): name a JDK 25
 *     ({@code scripts/java25}, or a JDK's own bin/java);</li>
 * <li>{@code scripts/java25 -jar} of a JMH or jcstress jar: run with {@code -l} added, which parses every option
 *     and lists what the filters select without running it; at least one benchmark or test must be listed;</li>
 * <li>{@code ./tk4j ARGS}: parsed by tk4j's command line (the jar on the class path), not run;</li>
 * <li>{@code scripts/java25 javac ...} and {@code scripts/java25 ... -cp ... Main}: run as written, in order;</li>
 * <li>any other command: the scripts and files it names exist.</li>
 * </ul>
 * The old-java refusal of the benchmark jars is checked too: the default java, if older than 25, exits 2 with one
 * line naming a JDK 25. Prints one line per command and a summary; exits 1 when any failed.
 */
public class DocCommands {

    static final Pattern INLINE = Pattern.compile("`([^`\n]+)`");
    static final Pattern BARE_JAVA = Pattern.compile("^(java|javac)(\\s|$)");
    static final Pattern PATH_TOKEN = Pattern.compile("^(\\./)?(scripts|docs|core|cli|benchmarks|stress|adapters)/"
            + "[\\w./-]*\\.(sh|java|py|jar)$");
    static int ok;
    static int failed;

    public static void main(String[] args) throws Exception {
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md")));
        if (Files.exists(Path.of("CONTRIBUTING.md"))) {
            files.add(Path.of("CONTRIBUTING.md"));
        }
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        for (Path f : files) {
            for (String[] cmd : commands(Files.readString(f))) {
                check(f + ":" + cmd[0], cmd[1]);
            }
        }
        oldJavaRefused("benchmarks/target/benchmarks.jar");
        System.out.printf("doc commands: %d OK, %d FAILED%n", ok, failed);
        System.exit(failed == 0 && ok > 0 ? 0 : 1);
    }

    /** {line, command} for every command in a Markdown text: fenced lines (continuations joined) and inline code. */
    static List<String[]> commands(String text) {
        List<String[]> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            int at = i + 1;
            if (fenced) {
                StringBuilder sb = new StringBuilder(line);
                while (sb.toString().endsWith("\\") && i + 1 < lines.length) {
                    sb.setLength(sb.length() - 1);
                    sb.append(' ').append(lines[++i].strip());
                }
                split(String.valueOf(at), sb.toString(), out);
            } else {
                Matcher m = INLINE.matcher(line);
                while (m.find()) {
                    split(String.valueOf(at), m.group(1), out);
                }
            }
        }
        return out;
    }

    private static void split(String at, String text, List<String[]> out) {
        String t = text.strip();
        if (t.startsWith("$ ")) {
            t = t.substring(2);
        }
        int comment = t.indexOf("  #");
        if (comment >= 0) {
            t = t.substring(0, comment);
        }
        for (String part : t.split("&&|;")) {
            String c = part.strip().replaceAll("\\s+", " ");
            if (c.startsWith("java ") || c.startsWith("javac ") || c.startsWith("scripts/") || c.startsWith("./tk4j")) {
                out.add(new String[] {at, c});
            }
        }
    }

    static void check(String where, String cmd) throws Exception {
        if (BARE_JAVA.matcher(cmd).find()) {
            fail(where, cmd, "a bare java is the machine's default (17 here): use scripts/java25 or a JDK 25's bin/java");
            return;
        }
        if (cmd.contains("...") || cmd.contains("<") || cmd.contains("VERSION")) {
            return; // an elided or templated command: nothing to run
        }
        List<String> argv = new ArrayList<>(List.of(cmd.replaceAll("['\"]", "").split(" ")));
        for (String token : argv) {
            if (PATH_TOKEN.matcher(token).matches() && !token.contains("/target/") && !Files.exists(Path.of(token))) {
                fail(where, cmd, token + " does not exist");
                return;
            }
        }
        String jar = argv.size() > 2 && argv.get(0).equals("scripts/java25") && argv.get(1).equals("-jar")
                ? argv.get(2) : "";
        if (jar.endsWith("benchmarks.jar") || jar.endsWith("jcstress.jar")) {
            Result r = shell(cmd + " -l");
            long listed = r.out.lines().filter(l -> l.startsWith("org.") || l.startsWith("  org.")).count();
            if (r.exit != 0 || listed == 0) {
                fail(where, cmd, "-l exit " + r.exit + ", " + listed + " selected: " + r.tail());
            } else {
                pass(where, cmd, listed + " selected");
            }
        } else if (argv.get(0).equals("./tk4j") && argv.size() > 1) {
            // Parsed by tk4j's own command line, without running: an unknown verb or option, a bad value's type.
            try {
                new CommandLine(new Tk4j()).parseArgs(argv.subList(1, argv.size()).toArray(String[]::new));
                pass(where, cmd, "parses");
            } catch (CommandLine.ParameterException e) {
                fail(where, cmd, "tk4j refuses it: " + e.getMessage());
            }
        } else if (argv.get(0).equals("scripts/java25") && (argv.contains("javac") || argv.contains("-cp"))) {
            Result r = shell(cmd);
            if (r.exit != 0) {
                fail(where, cmd, "exit " + r.exit + ": " + r.tail());
            } else {
                pass(where, cmd, "ran");
            }
        } else if (argv.get(0).startsWith("scripts/") && argv.get(0).endsWith(".sh")
                && !Files.isExecutable(Path.of(argv.get(0)))) {
            fail(where, cmd, argv.get(0) + " is not an executable script");
        }
    }

    /** The benchmark jar on the default java, where that is older than 25: exit 2, one line naming a JDK 25. */
    static void oldJavaRefused(String jar) throws Exception {
        Result v = run(List.of("java", "-XshowSettings:properties", "-version"));
        Matcher m = Pattern.compile("java\\.specification\\.version = (\\d+)").matcher(v.out);
        if (!m.find() || Integer.parseInt(m.group(1)) >= 25) {
            pass("default java", "java -jar " + jar, "the default java is 25 or later: nothing to refuse");
            return;
        }
        Result r = run(List.of("java", "-jar", jar, "-l"));
        if (r.exit == 2 && r.out.strip().lines().count() == 1 && r.out.contains("needs Java 25")) {
            pass("default java " + m.group(1), "java -jar " + jar, "refused: " + r.out.strip());
        } else {
            fail("default java " + m.group(1), "java -jar " + jar, "exit " + r.exit + ": " + r.tail());
        }
    }

    record Result(int exit, String out) {
        String tail() {
            List<String> l = out.strip().lines().toList();
            return String.join(" | ", l.subList(Math.max(0, l.size() - 3), l.size()));
        }
    }

    /** The command as a POSIX shell reads it (quotes, variables), from the repository's root. */
    static Result shell(String cmd) throws IOException, InterruptedException {
        return run(List.of("bash", "-c", cmd));
    }

    static Result run(List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, out + "\n(did not end in 300 s)");
        }
        return new Result(p.exitValue(), out);
    }

    static void pass(String where, String cmd, String what) {
        ok++;
        System.out.println("OK     " + where + ": " + cmd + " (" + what + ")");
    }

    static void fail(String where, String cmd, String why) {
        failed++;
        System.out.println("FAILED " + where + ": " + cmd + ": " + why);
    }
}
