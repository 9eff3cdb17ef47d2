package org.timekeeping4j.cli.verify;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.path.ClockReader;

/**
 * {@code verify agreement}: every read of a path is bracketed by two kernel reads of the same clock,
 * {@code before <= read <= after} ideally. The excursion is how far the read falls outside its bracket
 * ({@code max(0, before - read, read - after)}); its p50/p99/max must stay within the path's own bound
 * ({@link ClockPath#agreementBoundNanos}: 0 for the kernel and syscall paths).
 */
public final class AgreementCheck {

    private AgreementCheck() {}

    /** Runs the bracket loop on {@code cell} for {@code nanos} with {@code threads} threads. */
    public static CheckResult run(String mode, Cell cell, long nanos, int threads) {
        ClockId clock = cell.clock();
        ClockReader kernel = ClockPaths.KERNEL.reader(clock);
        ClockReader path = cell.path().reader(clock);
        long bound = cell.path().agreementBoundNanos(clock);
        TimedRun.warm(kernel);
        TimedRun.warm(path);
        Histogram[] excursions = new Histogram[threads];
        Histogram[] brackets = new Histogram[threads];
        long[] exactMax = new long[threads]; // the histogram's max is rounded up to its precision
        TimedRun.run(threads, nanos, (index, run) -> {
            Histogram ex = new Histogram(3);
            Histogram width = new Histogram(3);
            long worst = 0;
            while (run.running()) {
                for (int i = 0; i < 64; i++) {
                    long before = kernel.readNanos();
                    long read = path.readNanos();
                    long after = kernel.readNanos();
                    long excursion = Math.max(0, Math.max(before - read, read - after));
                    ex.recordValue(excursion);
                    worst = Math.max(worst, excursion);
                    width.recordValue(Math.max(0, after - before));
                }
            }
            excursions[index] = ex;
            exactMax[index] = worst;
            brackets[index] = width;
        });
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
        boolean ok = max <= bound;
        String summary = String.format("%,d bracketed reads, excursion p50 %d / p99 %d / max %d ns, bound %d ns",
                ex.getTotalCount(), ex.getValueAtPercentile(50), ex.getValueAtPercentile(99), max, bound);
        List<String> details = ok ? List.of()
                : List.of("a read fell " + max + " ns outside its kernel bracket; " + cell.path().name()
                        + " promises at most " + bound + " ns");
        return new CheckResult(mode, cell.subject(), ok ? Status.OK : Status.FAILED, summary, metrics, details);
    }
}
