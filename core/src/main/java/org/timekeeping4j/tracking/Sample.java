package org.timekeeping4j.tracking;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.ClockGettimeStub;

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

    // Two timespecs for the bracket's kernel reads, per sample object (each is used by one thread, the
    // tracker's). Native memory from the global arena: a few dozen bytes per tracker for the process's life.
    private final MemorySegment t0 = Arena.global().allocate(16, 8);
    private final MemorySegment t1 = Arena.global().allocate(16, 8);

    /**
     * Narrowest of {@code tries} brackets clock_gettime(clockId) / counter / clock_gettime(clockId).
     *
     * <p>Kernel reads around the counter read, not counter reads around a kernel read: this is the shape
     * of every check a user makes (a fast read between two kernel reads), and it matters. The kernel's
     * own counter read does not sit in the middle of clock_gettime: the other shape (counter / kernel /
     * counter) anchored the clock early, so that fast reads fell below the kernel read just before them
     * (docs/PERFORMANCE.md has the measurement). With this shape the fast clock is centred in the kernel's
     * brackets.
     *
     * <p>Nothing runs inside the bracket but the three calls: the kernel reads are bare clock_gettime into
     * timespecs, converted after the second. The midpoint assumes the time from the first kernel read's
     * counter read to ours equals the time from ours to the second's; anything that runs between them
     * on one side only biases the line by half its duration. Converting the first timespec to ns inside
     * the bracket did exactly that: while this code still ran as C1-compiled or interpreted code the
     * conversion (segment accessors, a thread-local lookup) took hundreds of ns, and the tracker anchored
     * its lines behind the kernel while its own brackets, biased the same way, said 0 (tk4j verify agreement
     * and a bracket harness free of that tail showed it; figures in docs/PERFORMANCE.md).
     */
    Sample take(Clocksource cs, int clockId, int tries) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < tries; i++) {
            LinuxTime.clockGettime(clockId, t0);
            long c = cs.read();
            LinuxTime.clockGettime(clockId, t1);
            long k0 = LinuxTime.toNanos(t0);
            long w = LinuxTime.toNanos(t1) - k0;
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
     * rounding. Returns {lo, hi} into {@code out}. The interval holds the offset whatever runs inside the
     * bracket (a longer one is only wider): the reads are ordered.
     */
    void offset(int baseClockId, int otherClockId, int tries, long[] out) {
        long bestWidth = Long.MAX_VALUE;
        for (int i = 0; i < tries; i++) {
            LinuxTime.clockGettime(baseClockId, t0);
            long o = ClockGettimeStub.clockGettimeNanos(otherClockId);
            LinuxTime.clockGettime(baseClockId, t1);
            long b0 = LinuxTime.toNanos(t0);
            long b1 = LinuxTime.toNanos(t1);
            long w = b1 - b0;
            if (w >= 0 && w < bestWidth) {
                bestWidth = w;
                out[0] = o - b1 - 1;
                out[1] = o - b0 + 1;
            }
        }
    }
}
