package org.timekeeping4j;

import org.timekeeping4j.serving.Capture;

/**
 * One instant seen by two clocks, from one counter read: what {@link Clocks#snapshot} fills, in the manner
 * of the kernel's ktime_get_snapshot_id(). Caller-owned and reusable; filling it allocates nothing.
 * Not thread-safe: one per thread.
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
     * The counter value read first thing in the call; 0 on the kernel path (no counter: the values come
     * from two clock_gettime calls, see {@link #isFromCounter()}).
     * @return the counter value read first (0 on the kernel path)
     */
    public long counter() {
        return capture.counter();
    }

    /**
     * The requested clock at {@link #counter()}: exactly what {@code Clocks.nanos(clock())} returned there.
     *
     * @return the requested clock at {@link #counter()}, ns
     */
    public long nanos() {
        return capture.a();
    }

    /**
     * MONOTONIC_RAW at the same counter value.
     *
     * @return MONOTONIC_RAW at {@link #counter()}, ns
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
     * True when both values are exactly what clock_gettime returned (or would have returned) at
     * {@link #counter()}: exact mode, with the kernel's parameters in force at that counter value. False on
     * the kernel path, and in exact mode when a kernel update came between the counter
     * read and the conversion (then the values are extrapolated back along the new parameters: off by the
     * frequency change times a few hundred ns at most), or when the library saw a clock disruption (a VMClock
     * marker change) after the counter read.
     *
     * @return whether the values are the kernel's own at the counter value
     */
    public boolean isExact() {
        return capture.exact();
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
        return "Snapshot[" + clock + "=" + nanos() + ", raw=" + rawNanos() + ", counter=" + counter()
                + (isFromCounter() ? "" : " (kernel path)") + (isExact() ? "" : ", inexact") + "]";
    }
}
