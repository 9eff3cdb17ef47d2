package org.timekeeping4j;

import org.timekeeping4j.serving.Capture;

/**
 * One instant seen by two clocks, from one counter read: what {@link Clocks#snapshot} fills, in the manner
 * of the kernel's ktime_get_snapshot_id(). Caller-owned and reusable; filling it allocates nothing.
 * Not thread-safe: one per thread.
 *
 * <p>Not a {@link CrossTimestamp}: a snapshot is a capture, the {@link #ticks()} of one counter read with one
 * clock and MONOTONIC_RAW at exactly that read (PPS and PTP capture, events converted later); a cross timestamp
 * relates any two clocks with its uncertainty.
 */
public final class Snapshot {

    /** An empty snapshot, to be filled by {@link Clocks#snapshot} (and filled again: it is reusable). */
    public Snapshot() {}

    /** What the serving mode fills (the counter, this clock as its A, MONOTONIC_RAW as its B), owned here. */
    final Capture capture = new Capture();
    ClockId clock;
    boolean valid;

    /**
     * The clock {@link #nanos()} is in.
     *
     * @return the clock of {@link #nanos()}
     */
    public ClockId clock() {
        return clock;
    }

    /**
     * The ticks read first thing in the call, as {@link Clocks#ticks()} returns them; 0 on the kernel path (no
     * counter: the values come from two clock_gettime calls, see {@link #isFromCounter()}).
     *
     * @return the ticks read first (0 on the kernel path)
     */
    public long ticks() {
        return capture.counter();
    }

    /**
     * The requested clock at {@link #ticks()}: exactly what {@code Clocks.nanos(clock())} returned there.
     *
     * @return the requested clock at {@link #ticks()}, ns
     */
    public long nanos() {
        return capture.a();
    }

    /**
     * MONOTONIC_RAW at the same counter value.
     *
     * @return MONOTONIC_RAW at {@link #ticks()}, ns
     */
    public long rawNanos() {
        return capture.b();
    }

    /**
     * Whether the snapshot holds values (false only before the first fill).
     *
     * @return true once a snapshot was taken into it
     */
    public boolean isValid() {
        return valid;
    }

    /**
     * True when the values were extrapolated rather than read: in exact mode, a kernel update came between the
     * counter read and the conversion (the values then follow the new parameters back: off by the frequency change
     * times a few hundred ns at most), or the library saw a clock disruption (a VMClock marker change) after the
     * counter read. False when both values are exactly what clock_gettime returned (or would have returned) at
     * {@link #ticks()}, and on the kernel path, whose two values are clock_gettime's own (read one after the
     * other: {@link #isFromCounter()} is false there).
     *
     * @return whether the values were extrapolated
     */
    public boolean isExtrapolated() {
        return capture.fromCounter() && !capture.exact();
    }

    /**
     * How far {@link #nanos()} may be from what the clock read at {@link #ticks()}: 0 where it is exactly that (and
     * on the kernel path, whose values are the clocks' own reads). For {@link Clocks#snapshotAt} of ticks within
     * the parameter history, the difference between the two parameter sets that may have served them (a
     * nanosecond or so, around a kernel update); older, the rate difference the history saw times their age.
     * {@link Long#MAX_VALUE} where nothing bounds it (no history kept, or a clock no counter read serves).
     *
     * @return the bound, ns
     */
    public long errorBoundNanos() {
        return capture.bound();
    }

    /**
     * Whether both values come from one counter read.
     *
     * @return true for one counter read; false on the kernel path (two reads, not one instant)
     */
    public boolean isFromCounter() {
        return capture.fromCounter();
    }

    @Override
    public String toString() {
        return "Snapshot[" + clock + "=" + nanos() + ", raw=" + rawNanos() + ", ticks=" + ticks()
                + (isFromCounter() ? "" : " (kernel path)") + (isExtrapolated() ? ", extrapolated" : "") + "]";
    }
}
