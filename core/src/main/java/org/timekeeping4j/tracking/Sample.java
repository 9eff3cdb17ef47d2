package org.timekeeping4j.tracking;

import java.util.function.LongSupplier;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.LinuxTime;

/**
 * Bracketed samples of the kernel's clocks against the counter, narrowest of several (see
 * clocksource.Calibrator for the reasoning). Mutable and reused by the tracker's thread: sampling
 * allocates nothing.
 */
final class Sample {
    /** The counter value read inside the bracket. */
    long counter;
    /** The kernel clock at {@link #counter}: the midpoint of the two kernel reads around it. */
    long kernel;
    /** Bracket width in ns. */
    long width;

    /**
     * Narrowest of {@code tries} brackets clock_gettime(clockId) / counter / clock_gettime(clockId).
     *
     * <p>Kernel reads around the counter read, not counter reads around a kernel read: this is the shape
     * of every check a user makes (a fast read between two kernel reads), and it matters. The kernel's
     * own counter read does not sit in the middle of clock_gettime: measured here, the other shape
     * (counter / kernel / counter) anchors the clock 40 to 50 ns early, so that fast reads fell below
     * the kernel read just before them. With this shape the fast clock is centred in the kernel's
     * brackets.
     */
    Sample take(Clocksource cs, int clockId, int tries) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < tries; i++) {
            long k0 = LinuxTime.clockGettimeNanos(clockId);
            long c = cs.read();
            long k1 = LinuxTime.clockGettimeNanos(clockId);
            long w = k1 - k0;
            if (w >= 0 && w < best) {
                best = w;
                counter = c;
                kernel = k0 + w / 2;
            }
        }
        width = best;
        return this;
    }

    /**
     * The interval the offset {@code clock(other) - clock(base)} lies in, from the narrowest of
     * {@code tries} brackets base / other / base, each widened by 1 ns for the kernel's per-clock
     * rounding. Returns {lo, hi} into {@code out}.
     */
    static void offset(LongSupplier base, LongSupplier other, int tries, long[] out) {
        long bestWidth = Long.MAX_VALUE;
        for (int i = 0; i < tries; i++) {
            long b0 = base.getAsLong();
            long o = other.getAsLong();
            long b1 = base.getAsLong();
            long w = b1 - b0;
            if (w >= 0 && w < bestWidth) {
                bestWidth = w;
                out[0] = o - b1 - 1;
                out[1] = o - b0 + 1;
            }
        }
    }
}
