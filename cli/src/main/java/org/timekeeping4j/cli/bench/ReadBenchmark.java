package org.timekeeping4j.cli.bench;

import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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

    /** Rounds a cell's recorded time is split into by default: each round measures every cell once. */
    public static final int DEFAULT_ROUNDS = 5;

    /**
     * A ratio whose rounds spread wider than this share of its median is too noisy to rank against the
     * baseline: the machine's load changed more between rounds than the paths differ.
     */
    public static final double NOISY_SPREAD = 0.25;

    /**
     * One cell's figures.
     *
     * @param cell           the (path, clock) measured
     * @param meanNs         mean ns per call over all batches
     * @param p50Ns          median batch's ns per call
     * @param p99Ns          99th-percentile batch's ns per call
     * @param calls          calls measured
     * @param call           the call measured, e.g. KernelClocks.nanos
     * @param baselineCall   the JDK call of the clock's kind compared with (System.nanoTime, Instant.now,
     *                       ThreadMXBean.getCurrentThreadCpuTime, ...; see {@link Baseline}), or
     *                       {@link Baseline#NONE} where the JDK has none
     * @param baselineMeanNs its mean ns per call in the same run (NaN without a baseline)
     * @param baselineP50Ns  its median ns per call in the same run (NaN without a baseline)
     * @param roundRatios    per round, this cell's p50 over the baseline's p50 in the same round (none without a
     *                       baseline)
     */
    public record CellResult(Cell cell, double meanNs, double p50Ns, double p99Ns, long calls, String call,
                             String baselineCall, double baselineMeanNs, double baselineP50Ns,
                             double[] roundRatios) {

        /** Whether the JDK has a call of this clock's kind to compare with: where not, there is no ratio. */
        public boolean hasBaseline() {
            return !baselineCall.equals(Baseline.NONE);
        }

        /** mean / the JDK baseline's mean: below 1 is faster than the JDK; NaN without a baseline. */
        public double ratio() {
            return hasBaseline() ? meanNs / baselineMeanNs : Double.NaN;
        }

        /**
         * The ratio to the JDK baseline: the median over rounds of p50 / the baseline's p50 in the same round
         * (robust to a few preempted batches and to load that changes between rounds); NaN without a baseline.
         */
        public double p50Ratio() {
            if (!hasBaseline()) {
                return Double.NaN;
            }
            if (roundRatios.length == 0) {
                return p50Ns / baselineP50Ns;
            }
            double[] sorted = roundRatios.clone();
            java.util.Arrays.sort(sorted);
            int n = sorted.length;
            return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }

        /** The lowest round's ratio. */
        public double ratioLow() {
            return java.util.Arrays.stream(roundRatios).min().orElse(p50Ratio());
        }

        /** The highest round's ratio. */
        public double ratioHigh() {
            return java.util.Arrays.stream(roundRatios).max().orElse(p50Ratio());
        }

        /** Whether the rounds spread too wide to rank this cell against its baseline ({@link #NOISY_SPREAD}). */
        public boolean noisy() {
            return roundRatios.length > 1 && (ratioHigh() - ratioLow()) / p50Ratio() > NOISY_SPREAD;
        }

        /** Whether this cell is its own baseline (the JDK's call measured as the jdk path). */
        public boolean isBaseline() {
            return call.equals(baselineCall) && cell.path().name().equals("jdk");
        }

        /**
         * "0.86x (0.80-0.93)", with " noisy" when the rounds are too far apart to rank; "-" without a baseline (the
         * baseline column says why).
         */
        public String ratioText() {
            if (!hasBaseline()) {
                return "-";
            }
            if (roundRatios.length < 2) {
                return String.format(Locale.ROOT, "%.2fx", p50Ratio());
            }
            return String.format(Locale.ROOT, "%.2fx (%.2f-%.2f)%s", p50Ratio(), ratioLow(), ratioHigh(),
                    noisy() ? " noisy" : "");
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
            // Without a baseline of the clock's kind: baseline and every ratio null, never a ratio to another kind.
            boolean base = hasBaseline();
            m.put("baseline", base ? baselineCall : null);
            m.put("baselineP50Ns", base ? round(baselineP50Ns) : null);
            m.put("ratioToBaseline", base ? round(ratio()) : null);
            m.put("p50RatioToBaseline", base ? round(p50Ratio()) : null);
            m.put("p50RatioLow", base ? round(ratioLow()) : null);
            m.put("p50RatioHigh", base ? round(ratioHigh()) : null);
            m.put("rounds", roundRatios.length);
            m.put("noisy", noisy());
            return m;
        }
    }

    /**
     * Measures every cell: a first pass warms every reader up (so the shared loop is compiled once, seeing all
     * of them), then {@code rounds} rounds each run every cell (the JDK baselines included) for
     * {@code warmupNanos / rounds} unrecorded and {@code durationNanos / rounds} recorded, in alternating order
     * (forward, then backward), so that a cell and its baseline are measured close together and load that
     * drifts during the run weighs on both. A cell's ratio is taken per round against its baseline in the same
     * round. The JDK baselines ({@link Baseline}: a call of the clock's own kind) are measured even when the jdk
     * path is not among {@code paths}; where the jdk path is, the JDK's CPU-time calls are reported as its rows of
     * the CPU-time clocks. A clock with no JDK call of its kind has no ratio.
     */
    public static List<CellResult> run(List<ClockPath> paths, List<ClockId> clocks, long warmupNanos,
                                       long durationNanos, int batch, int rounds, Progress progress) {
        List<Cell> cells = new ArrayList<>(Cell.of(paths, clocks, c -> true));
        if (paths.contains(ClockPaths.JDK)) {
            for (ClockId clock : cells.stream().map(Cell::clock).distinct().toList()) {
                baselineCell(clock).filter(b -> b.path() == Baseline.CPU_TIME && !cells.contains(b))
                        .ifPresent(cells::add);
            }
        }
        List<Cell> all = new ArrayList<>(cells);
        for (Cell c : cells) {
            baselineCell(c.clock()).filter(b -> !all.contains(b)).ifPresent(all::add);
        }
        PathReader[] readers = all.stream().map(c -> c.path().reader(c.clock())).toArray(PathReader[]::new);
        MethodHandle[] loops = new MethodHandle[readers.length];
        progress.doing("warming up every reader");
        for (int i = 0; i < readers.length; i++) {
            loops[i] = BatchLoop.forCell();
            measure(loops[i], readers[i], Math.max(1_000_000L, warmupNanos / 4), batch, null);
        }
        Histogram[] totals = new Histogram[all.size()];
        double[][] roundP50 = new double[all.size()][rounds];
        for (int i = 0; i < all.size(); i++) {
            totals[i] = new Histogram(3);
        }
        long warmPerRound = warmupNanos / rounds;
        long recordPerRound = Math.max(1, durationNanos / rounds);
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < all.size(); k++) {
                int i = r % 2 == 0 ? k : all.size() - 1 - k;
                progress.doing(all.get(i).clock().kernelName() + " " + all.get(i).path().name()
                        + (rounds > 1 ? " (round " + (r + 1) + " of " + rounds + ")" : ""));
                measure(loops[i], readers[i], warmPerRound, batch, null);
                Histogram h = new Histogram(3);
                measure(loops[i], readers[i], recordPerRound, batch, h);
                roundP50[i][r] = h.getValueAtPercentile(50);
                totals[i].add(h);
            }
        }
        List<CellResult> results = new ArrayList<>();
        List<Cell> byClock = new ArrayList<>(cells);
        // The JDK's CPU-time rows sit where the jdk path's would.
        byClock.sort(java.util.Comparator.comparing((Cell c) -> c.clock()).thenComparing(c -> paths.indexOf(
                c.path() == Baseline.CPU_TIME ? ClockPaths.JDK : c.path())));
        for (Cell c : byClock) {
            int i = all.indexOf(c);
            Histogram h = totals[i];
            String call = c.path().callName(c.clock());
            double mean = h.getMean() / 1000.0;
            double p50 = h.getValueAtPercentile(50) / 1000.0;
            double p99 = h.getValueAtPercentile(99) / 1000.0;
            Optional<Cell> base = baselineCell(c.clock());
            if (base.isEmpty()) {
                results.add(new CellResult(c, mean, p50, p99, h.getTotalCount() * batch, call, Baseline.NONE,
                        Double.NaN, Double.NaN, new double[0]));
                continue;
            }
            int b = all.indexOf(base.get());
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = roundP50[i][r] / roundP50[b][r];
            }
            results.add(new CellResult(c, mean, p50, p99, h.getTotalCount() * batch, call,
                    base.get().path().callName(base.get().clock()), totals[b].getMean() / 1000.0,
                    totals[b].getValueAtPercentile(50) / 1000.0, ratios));
        }
        return results;
    }

    /**
     * The JDK call a clock is compared with, of its own kind ({@link Baseline}): the JDK's own for MONOTONIC and
     * REALTIME, System.nanoTime for the other wall and monotonic clocks, the JDK's CPU-time call for the CPU-time
     * clocks; empty where the JDK has no call of the kind here.
     */
    static Optional<Cell> baselineCell(ClockId clock) {
        return Baseline.of(clock);
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
