package org.timekeeping4j.cli.bench;

import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.path.PathReader;
import org.timekeeping4j.cli.verify.Cell;
import org.timekeeping4j.cli.verify.Progress;

/**
 * vdsotest bench for every (clock, path) cell: the cost of one read in ns. Reads are timed in batches (one
 * System.nanoTime pair around {@code batch} calls, so the timer's own cost is spread over the batch); each batch
 * records its time per call into an HdrHistogram in picoseconds, which keeps sub-ns precision: a batch of 1000
 * calls taking T ns is T ps per call. Mean, p50 and p99 are over batches, not single calls.
 *
 * <p>Each cell runs in its own copy of the timed loop ({@link BatchLoop}), so the reader call is monomorphic and
 * inlined, as in JMH (module benchmarks), rather than an interface dispatch shared by every path.
 */
public final class ReadBenchmark {

    /** Calls timed together. */
    public static final int DEFAULT_BATCH = 1000;

    private ReadBenchmark() {}

    /**
     * One cell's figures.
     *
     * @param cell           the (path, clock) measured
     * @param meanNs         mean ns per call over all batches
     * @param p50Ns          median batch's ns per call
     * @param p99Ns          99th-percentile batch's ns per call
     * @param calls          calls measured
     * @param call           the call measured, e.g. Clocks.kernelNanos
     * @param baselineCall   the JDK call compared with (System.nanoTime, Instant.now)
     * @param baselineMeanNs its mean ns per call in the same run
     * @param baselineP50Ns  its median ns per call in the same run
     */
    public record CellResult(Cell cell, double meanNs, double p50Ns, double p99Ns, long calls, String call,
                             String baselineCall, double baselineMeanNs, double baselineP50Ns) {

        /** mean / the JDK baseline's mean: below 1 is faster than the JDK. */
        public double ratio() {
            return meanNs / baselineMeanNs;
        }

        /** p50 / the JDK baseline's p50: the same comparison, robust to a few preempted batches (short runs). */
        public double p50Ratio() {
            return p50Ns / baselineP50Ns;
        }

        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("clock", cell.clock().kernelName());
            m.put("path", cell.path().name());
            m.put("call", call);
            m.put("meanNs", round(meanNs));
            m.put("p50Ns", round(p50Ns));
            m.put("p99Ns", round(p99Ns));
            m.put("calls", calls);
            m.put("baseline", baselineCall);
            m.put("ratioToBaseline", round(ratio()));
            m.put("p50RatioToBaseline", round(p50Ratio()));
            return m;
        }
    }

    /**
     * Measures every cell: a first pass warms every reader up (so the shared loop is compiled once, seeing all
     * of them), then each cell runs {@code warmupNanos} unrecorded and {@code durationNanos} recorded.
     * The JDK baselines are measured even when the jdk path is not among {@code paths}.
     */
    public static List<CellResult> run(List<ClockPath> paths, List<ClockId> clocks, long warmupNanos,
                                       long durationNanos, int batch, Progress progress) {
        List<Cell> cells = Cell.of(paths, clocks, c -> true);
        List<Cell> all = new ArrayList<>(cells);
        for (Cell c : cells) {
            Cell base = baselineCell(c.clock());
            if (!all.contains(base)) {
                all.add(base);
            }
        }
        PathReader[] readers = all.stream().map(c -> c.path().reader(c.clock())).toArray(PathReader[]::new);
        MethodHandle[] loops = new MethodHandle[readers.length];
        progress.doing("warming up every reader");
        for (int i = 0; i < readers.length; i++) {
            loops[i] = BatchLoop.forCell();
            measure(loops[i], readers[i], Math.max(1_000_000L, warmupNanos / 4), batch, null);
        }
        Map<Cell, Histogram> histograms = new LinkedHashMap<>();
        for (int i = 0; i < all.size(); i++) {
            progress.doing(all.get(i).clock().kernelName() + " " + all.get(i).path().name());
            measure(loops[i], readers[i], warmupNanos, batch, null);
            Histogram h = new Histogram(3);
            measure(loops[i], readers[i], durationNanos, batch, h);
            histograms.put(all.get(i), h);
        }
        List<CellResult> results = new ArrayList<>();
        List<Cell> byClock = new ArrayList<>(cells);
        byClock.sort(java.util.Comparator.comparing((Cell c) -> c.clock()).thenComparing(c -> paths.indexOf(c.path())));
        for (Cell c : byClock) {
            Histogram h = histograms.get(c);
            Cell base = baselineCell(c.clock());
            results.add(new CellResult(c, h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getTotalCount() * batch, c.path().callName(c.clock()),
                    base.path().callName(base.clock()), histograms.get(base).getMean() / 1000.0,
                    histograms.get(base).getValueAtPercentile(50) / 1000.0));
        }
        return results;
    }

    /** The JDK call a clock is compared with: the JDK's own for MONOTONIC and REALTIME, System.nanoTime otherwise. */
    static Cell baselineCell(ClockId clock) {
        return new Cell(ClockPaths.JDK, ClockPaths.jdkBaselineClock(clock));
    }

    /** Times batches of {@code batch} calls for {@code nanos}; records ps per call into {@code into} unless null. */
    private static void measure(MethodHandle loop, PathReader reader, long nanos, int batch, Histogram into) {
        long end = System.nanoTime() + nanos;
        try {
            do {
                long elapsed = (long) loop.invokeExact(reader, batch);
                if (into != null) {
                    // elapsed ns for batch calls = elapsed * 1000 / batch ps per call.
                    into.recordValue(elapsed * 1000 / batch);
                }
            } while (System.nanoTime() < end);
        } catch (Throwable t) {
            throw t instanceof RuntimeException re ? re : new IllegalStateException(t);
        }
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
