package org.timekeeping4j.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.timekeeping4j.cli.text.Fold;

/**
 * The human table of {@code tk4j bench}: a line per clock naming its baseline, then a row per path under it. The
 * ratio to the JDK's call of the clock's own kind ({@link Baseline}; "-" and "no JDK baseline of this kind" where it
 * has none) is of the p50s (a mean is one preempted batch away from a tenfold ratio): the median over the rounds,
 * with the lowest and highest round's ratio, and "noisy" where they are too far apart to rank. Columns are as wide
 * as their widest entry; with {@code --verbose}, the call behind each path on a line under its row. Every line fits
 * the width (the paths' and calls' names are short).
 */
public final class BenchTable {

    private BenchTable() {}

    public static void print(PrintWriter out, List<ReadBenchmark.CellResult> results, int width, boolean calls) {
        int pathW = width(results.stream().map(r -> "  " + r.cell().path().name()), "clock / path");
        int ratioW = width(results.stream().map(r -> r.isBaseline() ? "(baseline)" : r.ratioText()), "p50 ratio");
        String row = "%-" + pathW + "s %8s %8s %8s  %-" + ratioW + "s";
        int rounds = results.stream().mapToInt(r -> r.roundRatios().length).max().orElse(0);
        out.println(String.format(row, "clock / path", "mean ns", "p99 ns", "p50 ns", "p50 ratio").stripTrailing());
        String last = null;
        for (ReadBenchmark.CellResult r : results) {
            String clock = r.cell().clock().kernelName();
            if (!clock.equals(last)) {
                out.println(Fold.text(clock + " (baseline: " + r.baselineCall() + ")", width, 4));
            }
            out.println(String.format(Locale.ROOT, row, "  " + r.cell().path().name(), BenchHtml.fmt(r.meanNs()),
                    BenchHtml.fmt(r.p99Ns()), BenchHtml.fmt(r.p50Ns()), r.isBaseline() ? "(baseline)" : r.ratioText())
                    .stripTrailing());
            if (calls) {
                out.println(Fold.text("      call: " + r.call(), width, 12));
            }
            last = clock;
        }
        if (rounds > 1) {
            out.println(Fold.text(String.format(Locale.ROOT, "p50 ratio: median over %d alternating rounds of p50 / "
                    + "the baseline's p50 in the same round (lowest-highest round), the baseline a JDK call of the "
                    + "clock's own kind; noisy: the rounds differ by more than %.0f%% of it, too much to rank", rounds,
                    ReadBenchmark.NOISY_SPREAD * 100), width, 0));
        }
    }

    private static int width(java.util.stream.Stream<String> values, String header) {
        return Math.max(header.length(), values.mapToInt(String::length).max().orElse(0));
    }
}
