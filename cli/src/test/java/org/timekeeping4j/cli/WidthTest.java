package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.DeviceSyscalls;
import picocli.CommandLine;

/**
 * Every line tk4j prints fits {@value Terminal#DEFAULT} columns by default: every verb's human output and its
 * {@code --json}, every command's --help, and the errors a newcomer provokes; wider only where the terminal says so
 * or --width asks.
 */
class WidthTest {

    /** Lines of {@code r}'s output and errors longer than {@code width}, each with its length. */
    private static List<String> tooLong(Tk4jHarness r, int width) {
        return (r.out() + r.err()).lines().filter(l -> l.length() > width).map(l -> l.length() + ": " + l).toList();
    }

    private static void fits(String... args) {
        Tk4jHarness r = Tk4jHarness.run(args);
        assertThat(r.out()).as("tk4j %s printed nothing: %s", String.join(" ", args), r).isNotBlank();
        assertThat(tooLong(r, Terminal.DEFAULT)).as("tk4j %s: lines wider than %d columns%n%s",
                String.join(" ", args), Terminal.DEFAULT, r).isEmpty();
    }

    /** {@link #fits} for the human form and the --json form. */
    private static void bothFit(String... args) {
        fits(args);
        List<String> json = new ArrayList<>(List.of(args));
        json.add("--json");
        fits(json.toArray(String[]::new));
        assertThat(Tk4jHarness.run(json.toArray(String[]::new)).json().isObject()).isTrue();
    }

    @Test
    void theMainJobAndInfoFit() {
        bothFit("--budget", "1");
        fits("--budget", "1", "--verbose");
        bothFit("info");
        fits("--version");
    }

    @Test
    void benchAndCaptureFit() {
        bothFit("bench", "--warmup", "0.005", "--duration", "0.01", "--rounds", "2");
        fits("--verbose", "bench", "--warmup", "0.005", "--duration", "0.01", "--rounds", "2");
        bothFit("capture", "-n", "2000");
    }

    /** Every mode at once (the skew subjects are the longest), and each mode alone: subjects align per mode. */
    @Test
    void verifyFitsInEveryMode() {
        bothFit("verify", "all", "-t", "1");
        for (String mode : List.of("consistency", "causality", "agreement", "abi", "skew")) {
            fits("verify", mode, "-t", "0.3");
        }
        // A failure's report: the broken path's 64 stamps, the marked pair and the verdict.
        bothFit("verify", "consistency", "--path", "broken", "-c", "MONOTONIC", "-t", "0.05");
        // A lowered minimum is said under the tally.
        fits("verify", "agreement", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.05", "--min-samples", "64");
    }

    @Test
    void theDeviceCommandsFit() throws Exception {
        DeviceSyscalls.use(new SimulatedDevices());
        try {
            bothFit("phc", SimulatedDevices.PTP, "--samples", "2");
            bothFit("pps", SimulatedDevices.PPS, "--count", "2");
        } finally {
            DeviceSyscalls.use(DeviceSyscalls.linux());
        }
        DeviceSyscalls.use(new SimulatedDevices());
        try {
            bothFit("phc", SimulatedDevices.RAW_PTP, "--fast", "--samples", "2");
        } finally {
            DeviceSyscalls.use(DeviceSyscalls.linux());
        }
        // A VMClock page with every flag set (the longest flags line), in a file as the lab's writer makes it.
        java.nio.file.Path page = java.nio.file.Files.createTempFile("tk4j-width", ".page");
        try (VmClockCommandTest.Page p = new VmClockCommandTest.Page(page, 1, 2, -1L, 7)) {
            bothFit("vmclock", page.toString());
        } finally {
            java.nio.file.Files.deleteIfExists(page);
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(java.nio.file.Files.exists(
                java.nio.file.Path.of("/var/run/clockbound/shm0")), "a ClockBound daemon runs here");
        bothFit("bounds");
    }

    /**
     * The bad inputs a newcomer tried, each answered in one line that fits, naming what was typed: mistyped verbs
     * and options, values out of range or of the wrong kind, files that are not devices, directories.
     */
    @Test
    void everyErrorIsOneLineThatFits() {
        String[][] bad = {
            {"verify", "-c", "99"}, {"verify", "-c", "-5"}, {"verify", "-c", "10"}, {"verify", "-c", "nope"},
            {"verify", "-c", "99999999999"}, {"verify", "all", "-t", "-5"}, {"verify", "all", "-t", "abc"},
            {"verify", "all", "--duration", "Infinity"}, {"verify", "nonsense"}, {"verfy"}, {"info", "--wdith", "80"},
            {"--bogus"}, {"capture", "-n", "-1"}, {"bench", "--rounds", "0"}, {"bench", "--html", "/"},
            {"bench", "--html", "/nonexistent-tk4j/dir/x.html"}, {"vmclock", "/tmp"}, {"vmclock", "/etc/hostname"},
            {"vmclock", "/nonexistent-tk4j"}, {"phc", "/dev/null"}, {"phc", "/tmp"}, {"pps", "/dev/null"},
            {"phc", "/nonexistent-tk4j"}, {"--width", "20"}, {"info", "--width", "wide"},
            {"verify", "skew", "--ppm", "501", "-t", "0.1"}, {"bounds", "--watch", "-t", "-1"}};
        for (String[] args : bad) {
            Tk4jHarness r = Tk4jHarness.run(args);
            assertThat(r.exit()).as(r.toString()).isNotZero();
            assertThat(r.err().lines().toList()).as("tk4j %s%n%s", String.join(" ", args), r).hasSize(1)
                    .allMatch(l -> l.startsWith("tk4j: ") && l.length() <= Terminal.DEFAULT);
        }
    }

    @Test
    void everyCommandsHelpFits() {
        List<List<String>> commands = new ArrayList<>();
        collect(new CommandLine(new Tk4j()), new ArrayList<>(), commands);
        assertThat(commands).hasSizeGreaterThan(10);
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            fits(args.toArray(String[]::new));
        }
        fits("help", "verify");
    }

    private static void collect(CommandLine cl, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        cl.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                List<String> next = new ArrayList<>(path);
                next.add(name);
                collect(sub, next, into);
            }
        });
    }

    /** The width: --width, else the terminal's, else 80; never under 80. */
    @Test
    void theWidthComesFromWidthThenTheTerminalAndIsNeverUnder80() {
        Terminal.Source none = Terminal.Source.NONE;
        assertThat(Terminal.width(new String[] {"info"}, none)).isEqualTo(80);
        assertThat(Terminal.width(new String[] {"info"}, () -> OptionalInt.of(60))).isEqualTo(80);
        assertThat(Terminal.width(new String[] {"info"}, () -> OptionalInt.of(90))).isEqualTo(90);
        assertThat(Terminal.width(new String[] {"info"}, () -> OptionalInt.of(160))).isEqualTo(160);
        assertThat(Terminal.width(new String[] {"info", "--width", "140"}, () -> OptionalInt.of(160))).isEqualTo(140);
        assertThat(Terminal.width(new String[] {"--width=80", "info"}, () -> OptionalInt.of(160))).isEqualTo(80);
        assertThat(Terminal.of(java.util.Map.of("COLUMNS", "132")).columns()).hasValue(132);
        assertThat(Terminal.of(java.util.Map.of("COLUMNS", "wide")).columns()).isEmpty();
        // A width is one line of error and exit 2, before any work.
        for (String bad : new String[] {"79", "wide", "100000"}) {
            Tk4jHarness r = Tk4jHarness.run("info", "--width", bad);
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
            assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
            assertThat(r.err()).contains("--width '" + bad + "'").contains("80 to 1000");
        }
        // Asked wider, the main job's table takes fewer parts; its lines still fit what was asked.
        Tk4jHarness wide = Tk4jHarness.run("--budget", "1", "--width", "200");
        assertThat(tooLong(wide, 200)).as(wide.out()).isEmpty();
        assertThat(wide.out().lines().filter(l -> l.startsWith("clock ")).count()).as(wide.out()).isEqualTo(1);
    }

    @Test
    void foldingBreaksAtBlanksAndIndentsTheRest() {
        assertThat(org.timekeeping4j.cli.text.Fold.lines("aaa bbb ccc ddd", 8, "  "))
                .containsExactly("aaa bbb", "  ccc", "  ddd");
        // A word longer than the width stays whole.
        assertThat(org.timekeeping4j.cli.text.Fold.lines("x /a/very/long/path y", 6, " "))
                .containsExactly("x", " /a/very/long/path", " y");
        assertThat(org.timekeeping4j.cli.text.Fold.lines("short", 100, "    ")).containsExactly("short");
    }
}
