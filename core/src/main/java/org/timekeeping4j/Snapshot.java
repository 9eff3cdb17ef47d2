package org.timekeeping4j;

import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * One instant seen by two clocks, from one counter read: what {@link Clocks#snapshot} fills, in the manner
 * of the kernel's ktime_get_snapshot_id(). Caller-owned and reusable; filling it allocates nothing.
 * Not thread-safe: one per thread.
 */
public final class Snapshot {

    // Conversion scratch, owned by this snapshot so that filling it allocates nothing.
    final Timekeeper.Conversion clockConversion = new Timekeeper.Conversion();
    final Timekeeper.Conversion rawConversion = new Timekeeper.Conversion();
    final org.timekeeping4j.vdso.KernelVdso.Conversion exactClock = new org.timekeeping4j.vdso.KernelVdso.Conversion();
    final org.timekeeping4j.vdso.KernelVdso.Conversion exactRaw = new org.timekeeping4j.vdso.KernelVdso.Conversion();

    ClockId clock;
    long counter;
    long nanos;
    long rawNanos;
    int clockWasSetSeq;
    long sourceChangedSeq;
    boolean valid;
    boolean fromCounter;
    boolean exact;

    /** The clock {@link #nanos()} is in. */
    public ClockId clock() {
        return clock;
    }

    /**
     * The counter value read first thing in the call; 0 on the kernel path (no counter: the values come
     * from two clock_gettime calls, see {@link #isFromCounter()}).
     */
    public long counter() {
        return counter;
    }

    /** The requested clock at {@link #counter()}: exactly what {@code Clocks.nanos(clock())} returned there. */
    public long nanos() {
        return nanos;
    }

    /** MONOTONIC_RAW at the same counter value. */
    public long rawNanos() {
        return rawNanos;
    }

    /** The clock-was-set sequence of the parameters used: it moves when REALTIME/TAI are stepped. */
    public int clockWasSetSeq() {
        return clockWasSetSeq;
    }

    /** Moves when the path serving the clocks changed (re-anchoring, fallback to the kernel). */
    public long sourceChangedSeq() {
        return sourceChangedSeq;
    }

    /** Whether the snapshot holds values (false only before the first fill). */
    public boolean isValid() {
        return valid;
    }

    /** True when both values come from one counter read; false on the kernel path (two reads, not one instant). */
    /**
     * True when both values are exactly what clock_gettime returned (or would have returned) at
     * {@link #counter()}: exact mode, with the kernel's parameters in force at that counter value. False on
     * the tracker's and the kernel's paths, and in exact mode when a kernel update came between the counter
     * read and the conversion (then the values are extrapolated back along the new parameters: off by the
     * frequency change times a few hundred ns at most).
     *
     * @return whether the values are the kernel's own at the counter value
     */
    public boolean isExact() {
        return exact;
    }

    public boolean isFromCounter() {
        return fromCounter;
    }

    @Override
    public String toString() {
        return "Snapshot[" + clock + "=" + nanos + ", raw=" + rawNanos + ", counter=" + counter
                + (fromCounter ? "" : " (kernel path)") + ", clockWasSet=" + clockWasSetSeq + ", sourceChanged="
                + sourceChangedSeq + "]";
    }
}
