package org.timekeeping4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.path.PathReader;
import org.timekeeping4j.cli.verify.Cell;
import org.timekeeping4j.cli.verify.Progress;

/**
 * Each clock is compared with a JDK call of its own kind (a CPU-time clock with the JDK's CPU-time call, never with
 * System.nanoTime), or with none; and the page's key states no figure that its own data does not give.
 */
class BaselineTest {

    @Test
    void theWallAndMonotonicClocksKeepTheJdksCallForThem() {
        assertThat(Baseline.of(ClockId.MONOTONIC)).contains(new Cell(ClockPaths.JDK, ClockId.MONOTONIC));
        assertThat(Baseline.of(ClockId.REALTIME)).contains(new Cell(ClockPaths.JDK, ClockId.REALTIME));
        assertThat(Baseline.of(ClockId.MONOTONIC_RAW)).contains(new Cell(ClockPaths.JDK, ClockId.MONOTONIC));
        assertThat(Baseline.of(ClockId.BOOTTIME).orElseThrow().path().callName(ClockId.MONOTONIC))
                .isEqualTo("System.nanoTime");
    }

    /** The CPU-time baselines are the JDK's CPU-time calls, and what they read is the clock's CPU time. */
    @Test
    void theCpuTimeClocksBaselineIsTheJdksCpuTimeCallReadingTheSameTime() {
        Cell thread = Baseline.of(ClockId.THREAD_CPUTIME_ID).orElseThrow();
        assertThat(thread.path().callName(thread.clock())).isEqualTo("getCurrentThreadCpuTime");
        Cell process = Baseline.of(ClockId.PROCESS_CPUTIME_ID).orElseThrow();
        assertThat(process.path().callName(process.clock())).isEqualTo("getProcessCpuTime");
        for (Cell c : List.of(thread, process)) {
            PathReader jdk = c.path().reader(c.clock());
            burn();
            long before = KernelClocks.nanos(c.clock());
            long read = jdk.readNanos();
            long after = KernelClocks.nanos(c.clock());
            long bound = c.path().agreementBoundNanos(c.clock());
            assertThat(read).as(c.subject()).isBetween(before - bound, after);
        }
    }

    /** A bench run of the CPU-time clocks: every row against the JDK's CPU-time call, the jdk row being it. */
    @Test
    void aRunRanksTheCpuTimeClocksAgainstTheJdksCpuTimeCalls() {
        List<ClockPath> paths = List.of(ClockPaths.KERNEL, ClockPaths.byName("syscall").orElseThrow(), ClockPaths.JDK);
        List<ReadBenchmark.CellResult> results = ReadBenchmark.run(paths, List.of(ClockId.THREAD_CPUTIME_ID,
                ClockId.PROCESS_CPUTIME_ID, ClockId.MONOTONIC), 2_000_000, 10_000_000, 100, 2, Progress.none());
        for (ReadBenchmark.CellResult r : results) {
            String expected = switch (r.cell().clock()) {
                case THREAD_CPUTIME_ID -> "getCurrentThreadCpuTime";
                case PROCESS_CPUTIME_ID -> "getProcessCpuTime";
                default -> "System.nanoTime";
            };
            assertThat(r.baselineCall()).as(r.cell().subject()).isEqualTo(expected);
            assertThat(r.p50Ratio()).as(r.cell().subject()).isPositive();
        }
        assertThat(results.stream().filter(ReadBenchmark.CellResult::isBaseline).map(r -> r.cell().clock()))
                .containsExactlyInAnyOrder(ClockId.THREAD_CPUTIME_ID, ClockId.PROCESS_CPUTIME_ID, ClockId.MONOTONIC);
        // The jdk rows sit where the jdk path's do: after kernel and syscall.
        assertThat(results.stream().filter(r -> r.cell().clock() == ClockId.THREAD_CPUTIME_ID)
                .map(r -> r.cell().path().name())).containsExactly("kernel", "syscall", "jdk");
    }

    /** Where the JDK has no call of the clock's kind: no ratio anywhere, and the row says so. */
    @Test
    void aClockWithoutABaselineOfItsKindHasNoRatio() {
        ReadBenchmark.CellResult r = new ReadBenchmark.CellResult(new Cell(ClockPaths.KERNEL,
                ClockId.THREAD_CPUTIME_ID), 800, 700, 900, 1000, "KernelClocks.nanos", Baseline.NONE, Double.NaN,
                Double.NaN, new double[0]);
        assertThat(r.hasBaseline()).isFalse();
        assertThat(r.ratioText()).isEqualTo("-");
        assertThat(r.noisy()).isFalse();
        assertThat(r.toMap()).containsEntry("baseline", null).containsEntry("p50RatioToBaseline", null)
                .containsEntry("ratioToBaseline", null);
        StringWriter table = new StringWriter();
        BenchTable.print(new PrintWriter(table, true), List.of(r), 100, false);
        assertThat(table.toString()).contains("no JDK baseline of this kind").doesNotContain("NaN")
                .doesNotContain("System.nanoTime");
        String page = BenchHtml.render(List.of(r), Map.of("batch", 1000), "now");
        assertThat(page).contains("no JDK baseline of this kind: no ratios").doesNotContain("NaN");
        // The dashed baseline line is the key's alone: the chart has none.
        assertThat(page.split("stroke-dasharray", -1)).hasSize(2);
    }

    /** The key's system-call figure is the page's: the median over clocks of syscall p50 / the fastest p50. */
    @Test
    void theKeysSystemCallFigureIsComputedFromThePagesResults() {
        List<ReadBenchmark.CellResult> results = new ArrayList<>();
        // syscall / fastest: MONOTONIC 200/20 = 10, REALTIME 150/25 = 6, BOOTTIME 300/20 = 15.
        results.addAll(clock(ClockId.REALTIME, 25, 150, 30));
        results.addAll(clock(ClockId.MONOTONIC, 20, 200, 22));
        results.addAll(clock(ClockId.BOOTTIME, 20, 300, 22));
        assertThat(BenchHtml.syscallRatios(results)).containsExactly(6.0, 10.0, 15.0);
        String page = BenchHtml.render(results, Map.of("batch", 1000), "now");
        assertThat(page).contains("In this run the clock_gettime system call (the syscall path) takes a median of "
                + "10.0x the p50 of the fastest path of the same clock (6.0x-15.0x over 3 clocks).")
                .doesNotContain("ten times");
        // Another run, another figure: nothing in the key is fixed.
        List<ReadBenchmark.CellResult> other = clock(ClockId.MONOTONIC, 30, 120, 30);
        assertThat(BenchHtml.render(other, Map.of("batch", 1000), "now"))
                .contains("takes 4.0x the p50 of the fastest path of the same clock.");
        // No syscall row: no figure at all.
        assertThat(BenchHtml.render(List.of(other.get(0)), Map.of("batch", 1000), "now"))
                .doesNotContain("In this run").contains("Broken bar");
    }

    /** The key's sample labels are the page's own ratios, not invented ones. */
    @Test
    void theKeysSampleLabelsAreThePagesOwn() {
        List<ReadBenchmark.CellResult> results = clock(ClockId.MONOTONIC, 20, 200, 25);
        String page = BenchHtml.render(results, Map.of("batch", 1000), "now");
        String key = page.substring(page.indexOf("id=\"key\""), page.indexOf("<div class=\"grid\">"));
        assertThat(key).contains(">0.80x</text>").contains(">0.80x (0.80-0.80)</text>");
    }

    /** kernel at {@code kernel} ns, syscall at {@code syscall} ns, against a baseline at {@code jdk} ns. */
    private static List<ReadBenchmark.CellResult> clock(ClockId clock, double kernel, double syscall, double jdk) {
        ClockPath sys = ClockPaths.byName("syscall").orElseThrow();
        String base = clock == ClockId.REALTIME ? "Instant.now" : "System.nanoTime";
        return List.of(
                new ReadBenchmark.CellResult(new Cell(ClockPaths.KERNEL, clock), kernel, kernel, kernel * 1.2, 1000,
                        "KernelClocks.nanos", base, jdk, jdk, new double[] {kernel / jdk, kernel / jdk}),
                new ReadBenchmark.CellResult(new Cell(sys, clock), syscall, syscall, syscall * 1.2, 1000,
                        "KernelClocks.syscallNanos", base, jdk, jdk, new double[] {syscall / jdk, syscall / jdk}));
    }

    private static void burn() {
        long end = System.nanoTime() + 2_000_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
