package org.timekeeping4j.cli.verify;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.PathReader;
import org.timekeeping4j.linux.LinuxTime;

/**
 * {@code verify agreement}: every read of a path is bracketed by two kernel reads of the same clock,
 * {@code before <= read <= after} ideally. The excursion is how far the read falls outside its bracket
 * ({@code max(0, before - read, read - after)}); its p50/p99/max must stay within the path's own bound
 * ({@link ClockPath#agreementBoundNanos}: 0 for the kernel and syscall paths).
 *
 * <h2>A bracket that measures the path, not the harness</h2>
 * A kernel read's value is the time of the counter read inside the vDSO, not of the call. Whatever runs
 * between that counter read and the path's read widens one side of the bracket only, and shifts its
 * midpoint: measured on this project's VM, while a bracket loop still ran as C1 code, converting each
 * kernel read's timespec to ns (segment accessors not yet inlined) cost ~300 ns after the counter read and
 * moved every read 150 ns off the bracket's centre. So the kernel reads here are the bare clock_gettime
 * into two preallocated timespecs, converted after the bracket; and each cell first runs the same loop
 * unrecorded for {@link #WARMUP_FRACTION} of its time (from {@link #MIN_WARMUP_NANOS} to
 * {@link #MAX_WARMUP_NANOS}), so that what is recorded ran as compiled code. The warm-up's worst
 * excursion is reported beside the result.
 */
public final class AgreementCheck {

    /** Share of each cell's time spent warming its bracket loop up, unrecorded. */
    static final double WARMUP_FRACTION = 0.2;
    static final long MIN_WARMUP_NANOS = 300_000_000L;
    static final long MAX_WARMUP_NANOS = 2_000_000_000L;
    /** The fewest recorded bracketed reads a cell needs for OK. */
    public static final long MIN_READS = 1_000;

    private AgreementCheck() {}

    /** Runs the bracket loop on {@code cell} for {@code nanos} with {@code threads} threads. */
    public static CheckResult run(String mode, Cell cell, long nanos, int threads) {
        return run(mode, cell, nanos, threads, MIN_READS);
    }

    /** As {@link #run(String, Cell, long, int)}, OK only from {@code minReads} recorded reads on. */
    public static CheckResult run(String mode, Cell cell, long nanos, int threads, long minReads) {
        ClockId clock = cell.clock();
        PathReader path = cell.path().reader(clock);
        long bound = cell.path().agreementBoundNanos(clock);
        TimedRun.warm(path);
        long warmup = Math.min(nanos / 2,
                Math.max(MIN_WARMUP_NANOS, Math.min(MAX_WARMUP_NANOS, (long) (nanos * WARMUP_FRACTION))));
        long[] warmupWorst = new long[threads];
        TimedRun.run(threads, warmup, (index, run) ->
                warmupWorst[index] = bracket(clock.id(), path, run, new Histogram(3), new Histogram(3)));
        Histogram[] excursions = new Histogram[threads];
        Histogram[] brackets = new Histogram[threads];
        long[] exactMax = new long[threads]; // the histogram's max is rounded up to its precision
        TimedRun.run(threads, nanos - warmup, (index, run) -> {
            Histogram ex = new Histogram(3);
            Histogram width = new Histogram(3);
            exactMax[index] = bracket(clock.id(), path, run, ex, width);
            excursions[index] = ex;
            brackets[index] = width;
        });
        long warmupMax = 0;
        for (long w : warmupWorst) {
            warmupMax = Math.max(warmupMax, w);
        }
        Histogram ex = new Histogram(3);
        Histogram width = new Histogram(3);
        for (int i = 0; i < threads; i++) {
            ex.add(excursions[i]);
            width.add(brackets[i]);
        }
        long max = 0;
        for (long m : exactMax) {
            max = Math.max(max, m);
        }
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("reads", ex.getTotalCount());
        metrics.put("boundNs", bound);
        metrics.put("excursionP50Ns", ex.getValueAtPercentile(50));
        metrics.put("excursionP99Ns", ex.getValueAtPercentile(99));
        metrics.put("excursionMaxNs", max);
        metrics.put("bracketP50Ns", width.getValueAtPercentile(50));
        metrics.put("warmupNs", warmup);
        metrics.put("warmupExcursionMaxNs", warmupMax);
        Status.putMinimum(metrics, "minReads", minReads, MIN_READS);
        boolean ok = max <= bound;
        long reads = ex.getTotalCount();
        // The warm-up (JIT, first binding) is not counted; its excursion is said only where it passed the bound.
        String summary = String.format("%,d bracketed reads, excursion p50 %d / p99 %d / max %d ns, bound %d ns",
                reads, ex.getValueAtPercentile(50), ex.getValueAtPercentile(99), max, bound)
                + (warmupMax > bound ? String.format(" (not counted: %d ms of warm-up, max %d ns)",
                        warmup / 1_000_000, warmupMax) : "") + Status.minimumNote(minReads, MIN_READS)
                + Status.shortfall(reads, minReads, ok ? 0 : 1);
        List<String> details = ok ? List.of()
                : List.of("a read fell " + max + " ns outside its kernel bracket; " + cell.path().name()
                        + " promises at most " + bound + " ns");
        return new CheckResult(mode, cell.subject(), Status.of(reads, minReads, ok ? 0 : 1), summary, metrics,
                details);
    }

    /**
     * The bracket loop: clock_gettime into t0, the path's read, clock_gettime into t1; the timespecs are
     * converted after the second kernel read, so nothing but the calls themselves lies inside the bracket.
     * Returns the exact worst excursion.
     */
    private static long bracket(int clockId, PathReader path, TimedRun run, Histogram ex, Histogram width) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t0 = arena.allocate(16, 8);
            MemorySegment t1 = arena.allocate(16, 8);
            long worst = 0;
            while (run.running()) {
                for (int i = 0; i < 64; i++) {
                    LinuxTime.clockGettime(clockId, t0);
                    long read = path.readNanos();
                    LinuxTime.clockGettime(clockId, t1);
                    long before = LinuxTime.toNanos(t0);
                    long after = LinuxTime.toNanos(t1);
                    long excursion = Math.max(0, Math.max(before - read, read - after));
                    ex.recordValue(excursion);
                    worst = Math.max(worst, excursion);
                    width.recordValue(Math.max(0, after - before));
                }
            }
            return worst;
        }
    }
}
