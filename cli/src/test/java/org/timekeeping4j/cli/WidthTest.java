package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.DeviceSyscalls;
import picocli.CommandLine;

/**
 * Every verb's human output, and every command's --help, fits {@value Terminal#DEFAULT} columns by default; wider
 * only where the terminal says so or --width asks.
 */
class WidthTest {

    /** Lines of {@code r}'s output longer than {@code width}, each with its length. */
    private static List<String> tooLong(Tk4jHarness r, int width) {
        return r.out().lines().filter(l -> l.length() > width).map(l -> l.length() + ": " + l).toList();
    }

    private static void fits(String... args) {
        Tk4jHarness r = Tk4jHarness.run(args);
        assertThat(r.out()).as("tk4j %s printed nothing: %s", String.join(" ", args), r).isNotBlank();
        assertThat(tooLong(r, Terminal.DEFAULT)).as("tk4j %s: lines wider than %d columns%n%s",
                String.join(" ", args), Terminal.DEFAULT, r.out()).isEmpty();
    }

    @Test
    void theMainJobAndInfoFit() {
        fits("--budget", "1");
        fits("--budget", "1", "--verbose");
        fits("info");
        fits("--version");
    }

    @Test
    void benchAndCaptureFit() {
        fits("bench", "--warmup", "0.005", "--duration", "0.01", "--rounds", "2");
        fits("capture", "-n", "2000");
    }

    /** Every mode at once (the skew subjects are the longest), and each mode alone: subjects align per mode. */
    @Test
    void verifyFitsInEveryMode() {
        fits("verify", "all", "-t", "1");
        for (String mode : List.of("consistency", "causality", "agreement", "abi", "skew")) {
            fits("verify", mode, "-t", "0.3");
        }
        // A failure's report: the broken path's 64 stamps, the marked pair and the verdict.
        fits("verify", "consistency", "--path", "broken", "-c", "MONOTONIC", "-t", "0.05");
        // A lowered minimum is said under the tally.
        fits("verify", "agreement", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.05", "--min-samples", "64");
    }

    @Test
    void theDeviceCommandsFit() throws Exception {
        DeviceSyscalls.use(new SimulatedDevices());
        try {
            fits("phc", SimulatedDevices.PTP, "--samples", "2");
            fits("pps", SimulatedDevices.PPS, "--count", "2");
        } finally {
            DeviceSyscalls.use(DeviceSyscalls.linux());
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(java.nio.file.Files.exists(
                java.nio.file.Path.of("/var/run/clockbound/shm0")), "a ClockBound daemon runs here");
        fits("bounds");
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

    /** The width: 100 unless the terminal is wider or --width asks for more; never narrower. */
    @Test
    void theWidthComesFromWidthThenTheTerminalAndIsNeverUnder100() {
        Terminal.Source none = Terminal.Source.NONE;
        assertThat(Terminal.width(new String[] {"info"}, none)).isEqualTo(100);
        assertThat(Terminal.width(new String[] {"info"}, () -> OptionalInt.of(80))).isEqualTo(100);
        assertThat(Terminal.width(new String[] {"info"}, () -> OptionalInt.of(160))).isEqualTo(160);
        assertThat(Terminal.width(new String[] {"info", "--width", "140"}, () -> OptionalInt.of(160))).isEqualTo(140);
        assertThat(Terminal.width(new String[] {"--width=120", "info"}, none)).isEqualTo(120);
        assertThat(Terminal.of(java.util.Map.of("COLUMNS", "132")).columns()).hasValue(132);
        assertThat(Terminal.of(java.util.Map.of("COLUMNS", "wide")).columns()).isEmpty();
        // A width is one line of error and exit 2, before any work.
        for (String bad : new String[] {"80", "wide", "100000"}) {
            Tk4jHarness r = Tk4jHarness.run("info", "--width", bad);
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
            assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
            assertThat(r.err()).contains("--width '" + bad + "'").contains("100 to 1000");
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
