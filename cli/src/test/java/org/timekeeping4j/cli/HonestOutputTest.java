package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.cli.verify.CheckResult;
import org.timekeeping4j.cli.verify.Progress;
import org.timekeeping4j.cli.verify.Status;

/** Help and output say what happened, no more and no less. */
class HonestOutputTest {

    @Test
    void progressNeverPrintsAnElapsedTimeBeyondItsTotal() {
        assertThat(Progress.line("tk4j verify", 3.2, 10, "x")).isEqualTo("tk4j verify: 3 s of about 10 s, x");
        String over = Progress.line("tk4j verify", 5.1, 4, "x");
        assertThat(over).doesNotContain("of about").contains("5 s").contains("over the planned 4 s");
    }

    /**
     * Off a terminal a progress line stays in the log for good: a run shorter than a minute prints none. Lines come
     * only from the ticker thread, so a short run starts none (no waiting needed to see that it never prints); a
     * run planned at a minute does, which shows the check can tell.
     */
    @Test
    void offATerminalAShortRunPrintsNoProgressLine() {
        java.io.StringWriter err = new java.io.StringWriter();
        try (Progress p = new Progress(new java.io.PrintWriter(err, true), "tk4j verify", 5.5)) {
            p.doing("x");
            assertThat(progressTickers()).as("tickers of a 5.5 s run off a terminal").isZero();
        }
        assertThat(err.toString()).isEmpty();
        try (Progress p = new Progress(new java.io.PrintWriter(new java.io.StringWriter(), true), "tk4j verify", 60)) {
            assertThat(progressTickers()).as("tickers of a 60 s run off a terminal").isOne();
        }
    }

    /** The live progress tickers (Progress names its thread tk4j-progress). */
    private static long progressTickers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("tk4j-progress")).count();
    }

    @Test
    void theMainJobsSummaryNamesEveryModeThatRan() {
        List<CheckResult> checks = List.of(result("consistency"), result("causality"), result("agreement"),
                result("abi"), result("skew"), result("skew"));
        assertThat(MainJob.modes(checks)).isEqualTo("consistency, causality, agreement, abi, skew");
    }

    @Test
    void skewsHelpDescribesWhatItDoesNow() {
        String help = Tk4jHarness.run("verify", "skew", "--help").out();
        assertThat(help).doesNotContain("not available yet").contains("--ppm").contains("1..500");
    }

    /** skew's help said "--path does not apply" and listed --path among its options; it lists only what applies. */
    @Test
    void skewsHelpListsNoPathOptionWhileTheModesThatReadPathsDo() {
        assertThat(Tk4jHarness.run("verify", "skew", "--help").out()).doesNotContain("--path=PATH");
        for (String mode : List.of("consistency", "causality", "agreement", "abi", "all")) {
            assertThat(Tk4jHarness.run("verify", mode, "--help").out()).as(mode).contains("--path=PATH");
        }
        assertThat(Tk4jHarness.run("verify", "--help").out()).contains("--path=PATH");
        // Given anyway, it is refused on one line with the reason, before any work.
        Tk4jHarness r = Tk4jHarness.run("verify", "skew", "--path", "fast");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err()).contains("--path is not for skew");
    }

    private static CheckResult result(String mode) {
        return new CheckResult(mode, "s", Status.OK, "", new LinkedHashMap<>(), List.of());
    }
}
