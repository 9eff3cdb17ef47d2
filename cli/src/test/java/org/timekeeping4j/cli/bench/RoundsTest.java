package org.timekeeping4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.verify.Cell;

/** One statistic for a ratio everywhere: the median over rounds of p50 / the baseline's p50, with its spread. */
class RoundsTest {

    /** A cell whose mean ratio (2.0) and p50 ratio (about 0.8) differ, as after a few preempted batches. */
    private static ReadBenchmark.CellResult fast(double... rounds) {
        return new ReadBenchmark.CellResult(new Cell(ClockPaths.KERNEL, ClockId.MONOTONIC), 40, 16, 30, 1000,
                "KernelClocks.nanos", "System.nanoTime", 20, 20, rounds);
    }

    @Test
    void theRatioIsTheRoundsMedianWithTheirRange() {
        ReadBenchmark.CellResult r = fast(0.9, 0.7, 0.8, 1.6, 0.75);
        assertThat(r.p50Ratio()).isEqualTo(0.8);
        assertThat(r.ratioLow()).isEqualTo(0.7);
        assertThat(r.ratioHigh()).isEqualTo(1.6);
        assertThat(r.noisy()).isTrue();
        assertThat(r.ratioText()).isEqualTo("0.80x (0.70-1.60) noisy");
        ReadBenchmark.CellResult steady = fast(0.81, 0.79, 0.80, 0.82);
        assertThat(steady.p50Ratio()).isCloseTo(0.805, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(steady.noisy()).isFalse();
        assertThat(steady.ratioText()).isEqualTo("0.81x (0.79-0.82)");
        assertThat(steady.toMap()).containsEntry("rounds", 4).containsEntry("noisy", false)
                .containsEntry("p50RatioLow", 0.79).containsEntry("p50RatioHigh", 0.82);
    }

    @Test
    void theHtmlPageLabelsTheSameP50RatioAsTheTerminalNotTheMean() {
        ReadBenchmark.CellResult r = fast(0.81, 0.79, 0.80);
        String page = BenchHtml.render(List.of(r), Map.of("batch", 1000), "now");
        assertThat(page).contains("0.80x (0.79-0.81)").doesNotContain("2.00x");
        // The page explains its marks: the bold labels (ratios below 0.95, rounds agreeing), the grey baseline bar,
        // the dashed line, the whisker, noisy, the broken bar.
        assertThat(page).contains("id=\"key\"").contains("Bold label: faster than the baseline, its p50 ratio below 0.95")
                .contains("Grey bar").contains("Dashed line").contains("Whisker").contains("noisy: the rounds")
                .contains("Broken bar");
        StringWriter table = new StringWriter();
        BenchTable.print(new PrintWriter(table, true), List.of(r), 100, false);
        assertThat(table.toString()).contains("0.80x (0.79-0.81)").contains("System.nanoTime")
                .doesNotContain("2.00x");
    }

    @Test
    void theTablesColumnsStayAlignedWithALongPathName() {
        ReadBenchmark.CellResult a = fast(0.8, 0.8, 0.8);
        ReadBenchmark.CellResult b = new ReadBenchmark.CellResult(new Cell(ClockPaths.byName("fast-unordered")
                .orElseThrow(), ClockId.MONOTONIC), 10, 10, 12, 1000, "Clocks.nanosUnordered", "System.nanoTime",
                20, 20, new double[] {0.5, 0.5, 0.5});
        StringWriter table = new StringWriter();
        BenchTable.print(new PrintWriter(table, true), List.of(a, b), 100, true);
        List<String> lines = table.toString().lines().toList();
        // The clock heads its rows with its baseline; with the calls, each under its path's row.
        assertThat(lines.get(1)).as(table.toString()).isEqualTo("CLOCK_MONOTONIC (baseline: System.nanoTime)");
        assertThat(lines.get(3)).as(table.toString()).isEqualTo("      call: " + a.call());
        assertThat(lines.get(5)).as(table.toString()).isEqualTo("      call: Clocks.nanosUnordered");
        // Without the calls (the default): the ratios still start in one column, under their heading.
        StringWriter plain = new StringWriter();
        BenchTable.print(new PrintWriter(plain, true), List.of(a, b), 100, false);
        List<String> rows = plain.toString().lines().toList();
        int ratio = rows.get(0).indexOf("p50 ratio");
        assertThat(rows.get(2).indexOf("0.80x")).as(plain.toString()).isEqualTo(ratio);
        assertThat(rows.get(3).indexOf("0.50x")).as(plain.toString()).isEqualTo(ratio);
        assertThat(plain.toString()).doesNotContain("Clocks.nanosUnordered");
    }
}
