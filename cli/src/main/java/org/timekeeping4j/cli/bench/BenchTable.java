package org.timekeeping4j.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The human table of {@code tk4j bench}: one row per (clock, path), grouped by clock. The ratio to the JDK is of
 * the p50s (a mean is one preempted batch away from a tenfold ratio): the median over the rounds, with the
 * lowest and highest round's ratio, and "noisy" where they are too far apart to rank; the baseline is named on
 * every row. Columns are as wide as their widest entry.
 */
public final class BenchTable {

    private BenchTable() {}

    public static void print(PrintWriter out, List<ReadBenchmark.CellResult> results) {
        int clockW = width(results.stream().map(r -> r.cell().clock().kernelName()), "clock");
        int pathW = width(results.stream().map(r -> r.cell().path().name()), "path");
        int callW = width(results.stream().map(ReadBenchmark.CellResult::call), "call");
        int ratioW = width(results.stream().map(r -> r.isBaseline() ? "" : r.ratioText()), "p50 ratio");
        String row = "%-" + clockW + "s %-" + pathW + "s %-" + callW + "s %8s %8s %8s  %-" + ratioW + "s %s%n";
        int rounds = results.isEmpty() ? 0 : results.get(0).roundRatios().length;
        out.printf(row, "clock", "path", "call", "mean ns", "p99 ns", "p50 ns", "p50 ratio", "vs (same run)");
        String last = null;
        for (ReadBenchmark.CellResult r : results) {
            String clock = r.cell().clock().kernelName();
            out.printf(Locale.ROOT, row, clock.equals(last) ? "" : clock, r.cell().path().name(), r.call(),
                    BenchHtml.fmt(r.meanNs()), BenchHtml.fmt(r.p99Ns()), BenchHtml.fmt(r.p50Ns()),
                    r.isBaseline() ? "" : r.ratioText(), r.isBaseline() ? "(baseline)" : r.baselineCall());
            last = clock;
        }
        if (rounds > 1) {
            out.printf(Locale.ROOT, "p50 ratio: median over %d alternating rounds of p50 / the baseline's p50 in the "
                    + "same round (lowest-highest round); noisy: the rounds differ by more than %.0f%% of it, too "
                    + "much to rank%n", rounds, ReadBenchmark.NOISY_SPREAD * 100);
        }
    }

    private static int width(java.util.stream.Stream<String> values, String header) {
        return Math.max(header.length(), values.mapToInt(String::length).max().orElse(0));
    }
}
