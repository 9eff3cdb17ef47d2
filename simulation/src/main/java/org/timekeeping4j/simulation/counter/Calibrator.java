package org.timekeeping4j.simulation.counter;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Measures a counter's frequency against a kernel clock (CLOCK_MONOTONIC_RAW) with brackets:
 * read counter, read kernel, read counter. The kernel read happened somewhere inside the bracket, so
 * the counter value at that instant is the bracket's midpoint within half its width. Of many brackets
 * the narrowest is kept: the others were stretched by an interrupt, a preemption or a cache miss. Two
 * such points a baseline apart give the frequency; the error is the two half-widths over the baseline.
 */
final class Calibrator {

    private static final long WARM_UP_QUIET_NANOS = 150_000_000L;
    private static final long WARM_UP_MAX_NANOS = 1_000_000_000L;

    private Calibrator() {}

    /** A counter value known to correspond to a kernel time within +/- width/2 cycles. */
    record Bracket(long counterMid, long kernelNanos, long widthCycles) {}

    static Bracket narrowest(LongSupplier counter, LongSupplier kernelNanos, int samples) {
        long bestWidth = Long.MAX_VALUE;
        long bestMid = 0;
        long bestKernel = 0;
        for (int i = 0; i < samples; i++) {
            long c0 = counter.getAsLong();
            long k = kernelNanos.getAsLong();
            long c1 = counter.getAsLong();
            long width = c1 - c0;
            if (width >= 0 && width < bestWidth) {
                bestWidth = width;
                bestMid = c0 + width / 2;
                bestKernel = k;
            }
        }
        if (bestWidth == Long.MAX_VALUE) {
            throw new IllegalStateException("the counter went backwards inside every one of " + samples + " brackets");
        }
        return new Bracket(bestMid, bestKernel, bestWidth);
    }

    /**
     * Spins on brackets until the JIT has compiled the loop: brackets taken by interpreted or C1 code are
     * ten times wider or more than by C2 code (docs/PERFORMANCE.md has the widths measured, cold, after C1
     * and after C2, and how long C2 took under load). Stops once the narrowest width has not improved by 10% for
     * {@link #WARM_UP_QUIET_NANOS}, after at least that long and at most {@link #WARM_UP_MAX_NANOS}.
     */
    static void warmUp(LongSupplier counter, LongSupplier kernelNanos) {
        long start = kernelNanos.getAsLong();
        long lastImprovement = start;
        long best = Long.MAX_VALUE;
        long now;
        while ((now = kernelNanos.getAsLong()) - start < WARM_UP_MAX_NANOS) {
            long width = narrowest(counter, kernelNanos, 1000).widthCycles();
            if (width < best - best / 10) {
                best = width;
                lastImprovement = now;
            } else if (now - lastImprovement > WARM_UP_QUIET_NANOS) {
                return;
            }
        }
    }

    /**
     * The frequency over a baseline of at least {@code baselineNanos} of the kernel clock.
     *
     * @param samples brackets taken at each end; the narrowest is kept
     */
    static Frequency calibrate(LongSupplier counter, LongSupplier kernelNanos, long baselineNanos, int samples) {
        warmUp(counter, kernelNanos);
        Bracket a = narrowest(counter, kernelNanos, samples);
        long until = a.kernelNanos() + baselineNanos;
        long now;
        while ((now = kernelNanos.getAsLong()) < until) {
            LockSupport.parkNanos(Math.min(until - now, 10_000_000L));
        }
        Bracket b = narrowest(counter, kernelNanos, samples);
        long elapsedNanos = b.kernelNanos() - a.kernelNanos();
        double hz = (double) (b.counterMid() - a.counterMid()) * 1e9 / elapsedNanos;
        // Each midpoint is within half its bracket of the truth; the kernel clock reads to 1 ns.
        double errorNanos = (a.widthCycles() + b.widthCycles()) / 2.0 / hz * 1e9 + 2.0;
        double ppb = errorNanos / elapsedNanos * 1e9;
        return new Frequency(hz, ppb, String.format("calibrated against CLOCK_MONOTONIC_RAW over %.0f ms",
                elapsedNanos / 1e6));
    }
}
