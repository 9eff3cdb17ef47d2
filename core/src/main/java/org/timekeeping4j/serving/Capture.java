package org.timekeeping4j.serving;

import java.util.Arrays;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * Two clocks at one instant, as a backend fills them: the holder behind the public Snapshot (clock and
 * MONOTONIC_RAW) and CrossTimestamp (clock A and clock B), which own one each and read their values from it.
 * Caller-owned and reusable: filling it allocates nothing (the conversions' results are held here). Not
 * thread-safe: one per thread.
 */
public final class Capture {

    /** Exact mode's conversion of the counter value to clock A (the kernel data), owned here. */
    final VdsoNanos exactA = new VdsoNanos();
    /** The same to clock B. */
    final VdsoNanos exactB = new VdsoNanos();

    private long counter;
    private long a;
    private long b;
    private long widthNanos;
    private boolean fromCounter;
    private boolean exact;
    private long bound;

    /** An empty capture, for a backend to fill. */
    public Capture() {}

    /** {@return the counter value read first; 0 where the values come from clock_gettime calls} */
    public long counter() {
        return counter;
    }

    /** {@return clock A's value (a snapshot's clock)} */
    public long a() {
        return a;
    }

    /** {@return clock B's value (a snapshot's MONOTONIC_RAW)} */
    public long b() {
        return b;
    }

    /** {@return how far apart the two values may have been read: 0 for one counter read converted twice} */
    public long widthNanos() {
        return widthNanos;
    }

    /** {@return true where both values come from one counter read} */
    public boolean fromCounter() {
        return fromCounter;
    }

    /** {@return true where both values are the kernel's own at {@link #counter()}} */
    public boolean exact() {
        return exact;
    }

    /** {@return the kernel's cycle_last of the parameters clock A was converted with, where one counter read served} */
    public long cycleLast() {
        return exactA.cycleLast();
    }

    /**
     * {@return how far {@link #a()} may be from what clock A read at {@link #counter()}, ns: 0 where exact (and on
     * the kernel path, whose values are the clocks' own reads); {@link Long#MAX_VALUE} where nothing bounds it}
     */
    public long bound() {
        return bound;
    }

    /** One counter read, converted to both clocks. */
    void fromCounter(long counter, long a, long b, boolean exact) {
        this.counter = counter;
        this.a = a;
        this.b = b;
        this.widthNanos = 0;
        this.fromCounter = true;
        this.exact = exact;
        this.bound = exact ? 0 : Long.MAX_VALUE;
    }

    /**
     * Ticks read earlier, converted now ({@link TicksConverter}): clock A and MONOTONIC_RAW at them, with their
     * exactness and bound; from a counter where ticks are counter cycles.
     */
    public void fromTicks(long ticks, ClockId clock, TicksConverter converter) {
        converter.convert(ticks, clock);
        long va = converter.nanos();
        boolean ea = converter.exact();
        long ba = converter.bound();
        converter.convert(ticks, ClockId.MONOTONIC_RAW);
        counter = ticks;
        a = va;
        b = converter.nanos();
        widthNanos = 0;
        fromCounter = true; // one read of the ticks: whether it converts exactly is said by exact
        exact = ea;
        bound = ba;
    }

    /** A snapshot from the kernel's clocks: two clock_gettime reads, not one instant, and said so. */
    void fromKernel(ClockId clock) {
        counter = 0;
        a = FastPath.kernelNanos(clock);
        b = FastPath.kernelNanos(ClockId.MONOTONIC_RAW);
        widthNanos = 0;
        fromCounter = false;
        exact = false;
        bound = 0;
    }

    /** A snapshot where no counter is read: two reads. */
    static void kernelSnapshot(ClockId clock, Capture into) {
        if (!Backend.counterBacked(clock)) {
            throw notSnapshotCapable(clock);
        }
        into.fromKernel(clock);
    }

    static IllegalArgumentException notSnapshotCapable(ClockId clock) {
        return new IllegalArgumentException("snapshots serve the counter-backed clocks "
                + Arrays.toString(CounterClock.values()) + ", not " + clock);
    }

    /** Any mode, where no counter read serves both: the narrowest of {@code samples} brackets (a, b, a). */
    void sampled(ClockId clockA, ClockId clockB, int samples) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < Math.max(1, samples); i++) {
            long a0 = FastPath.nanos(clockA);
            long bv = FastPath.nanos(clockB);
            long a1 = FastPath.nanos(clockA);
            if (a1 - a0 >= 0 && a1 - a0 < best) {
                best = a1 - a0;
                a = a0 + (a1 - a0) / 2;
                b = bv;
            }
        }
        counter = 0;
        widthNanos = best;
        fromCounter = false;
        exact = false;
    }
}
