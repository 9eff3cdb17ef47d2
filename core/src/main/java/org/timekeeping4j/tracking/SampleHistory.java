package org.timekeeping4j.tracking;

import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The tracker's accepted samples, newest last, and the frequency each line runs at by them: the slope of
 * kernel time over counter cycles between the newest sample and the oldest within {@link #BASELINE_NANOS}.
 * Updater thread only.
 */
final class SampleHistory {

    /** The longest baseline for the frequency estimate. */
    static final long BASELINE_NANOS = 60_000_000_000L;
    /** {@link #monoSlopePpb}'s and {@link #rawSlopePpb}'s answer when fewer than two samples are usable. */
    static final long NO_SLOPE = Long.MIN_VALUE;
    private static final int SIZE = 2048;

    /** The counter value of each sample (the MONOTONIC bracket's). */
    private final long[] counters = new long[SIZE];
    /** CLOCK_MONOTONIC at that counter value. */
    private final long[] monoKernel = new long[SIZE];
    /** CLOCK_MONOTONIC_RAW at that counter value. */
    private final long[] rawKernel = new long[SIZE];
    /** Samples added since {@link #clear}; the newest is at index {@code (added - 1) % SIZE}. */
    private int added;
    /**
     * The first sample the MONOTONIC slope counts: the kernel's steered rate changed just before it, and the
     * samples before describe a rate the kernel no longer runs at.
     */
    private int monoRateSince;
    /** The span in ns of kernel time the last slope was taken over. */
    private long baselineNanos;

    void clear() {
        added = 0;
        monoRateSince = 0;
    }

    /** The kernel's steered rate changed: the MONOTONIC slope restarts from the samples after now. */
    void monoRateChanged() {
        monoRateSince = added;
    }

    /**
     * Adds a sample: MONOTONIC read around counter value {@code monoCounter}, MONOTONIC_RAW around {@code rawCounter}
     * (a counter of {@code hz} nominal). The raw sample is stored against the MONOTONIC one's counter value by
     * shifting its kernel time with the nominal rate (the two brackets are a bracket apart: sub-ns error).
     */
    void add(long monoCounter, long mono, long rawCounter, long raw, double hz) {
        int i = added++ & (SIZE - 1);
        counters[i] = monoCounter;
        monoKernel[i] = mono;
        rawKernel[i] = raw + (long) ((monoCounter - rawCounter) * 1e9 / hz);
    }

    /** {@return MONOTONIC's frequency offset against {@code tk}'s raw mult, in ppb, or {@link #NO_SLOPE}} */
    long monoSlopePpb(Timekeeper tk) {
        return slopePpb(monoKernel, tk, monoRateSince);
    }

    /** {@return MONOTONIC_RAW's frequency offset against {@code tk}'s raw mult, in ppb, or {@link #NO_SLOPE}} */
    long rawSlopePpb(Timekeeper tk) {
        return slopePpb(rawKernel, tk, 0);
    }

    /** {@return the kernel time the last slope was taken over, ns} */
    long baselineNanos() {
        return baselineNanos;
    }

    /**
     * The frequency offset (ppb against the timekeeper's raw mult) that makes a line run at the kernel's rate:
     * the slope between the newest sample and the oldest since {@code since} within the baseline.
     */
    private long slopePpb(long[] kernel, Timekeeper tk, int since) {
        if (added - since < 2) {
            return NO_SLOPE;
        }
        int newest = (added - 1) & (SIZE - 1);
        int available = Math.min(added - since, SIZE);
        int oldest = (added - available) & (SIZE - 1);
        // Skip samples older than the baseline.
        for (int k = available; k > 2; k--) {
            int i = (added - k) & (SIZE - 1);
            if (kernel[newest] - kernel[i] <= BASELINE_NANOS) {
                oldest = i;
                break;
            }
        }
        long dc = counters[newest] - counters[oldest];
        long dk = kernel[newest] - kernel[oldest];
        baselineNanos = dk;
        if (dc <= 0 || dk <= 0) {
            return 0;
        }
        double nsPerCycle = (double) dk / dc;
        double nominal = tk.rawMult() / Math.scalb(1.0, tk.shift());
        return Math.round((nsPerCycle / nominal - 1) * 1e9);
    }
}
