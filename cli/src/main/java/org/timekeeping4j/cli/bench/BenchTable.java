package org.timekeeping4j.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The human table of {@code tk4j bench}: one row per (clock, path), grouped by clock. The ratio to the JDK is of
 * the p50s, the column printed next to it (a mean is one preempted batch away from a tenfold ratio).
 */
public final class BenchTable {

    private BenchTable() {}

    public static void print(PrintWriter out, List<ReadBenchmark.CellResult> results) {
        out.printf("%-26s %-11s %-24s %8s %8s %8s  %s%n", "clock", "path", "call", "mean ns", "p99 ns", "p50 ns",
                "p50 vs JDK (same run)");
        String last = null;
        for (ReadBenchmark.CellResult r : results) {
            String clock = r.cell().clock().kernelName();
            out.printf(Locale.ROOT, "%-26s %-11s %-24s %8s %8s %8s  %s%n", clock.equals(last) ? "" : clock,
                    r.cell().path().name(), r.call(), BenchHtml.fmt(r.meanNs()), BenchHtml.fmt(r.p99Ns()),
                    BenchHtml.fmt(r.p50Ns()), r.call().equals(r.baselineCall()) && r.cell().path().name().equals("jdk")
                            ? "(baseline)" : String.format(Locale.ROOT, "%5.2fx %s", r.p50Ratio(), r.baselineCall()));
            last = clock;
        }
    }
}
