package org.timekeeping4j;

/**
 * Two clocks at one instant, with the uncertainty: what {@link Clocks#crossTimestamp} fills. For users who
 * correlate logs or events across clocks (REALTIME against MONOTONIC_RAW, BOOTTIME against TAI, ...).
 * Caller-owned, reusable, allocation-free to fill; one per thread.
 */
public final class CrossTimestamp {

    final org.timekeeping4j.vdso.KernelVdso.VdsoNanos exactA = new org.timekeeping4j.vdso.KernelVdso.VdsoNanos();
    final org.timekeeping4j.vdso.KernelVdso.VdsoNanos exactB = new org.timekeeping4j.vdso.KernelVdso.VdsoNanos();

    ClockId a;
    ClockId b;
    long aNanos;
    long bNanos;
    long widthNanos;
    boolean fromCounter;

    /** An empty cross-timestamp for {@link Clocks#crossTimestamp} to fill. */
    public CrossTimestamp() {
    }

    /** {@return clock A, the first clock asked for} */
    public ClockId clockA() {
        return a;
    }

    /** {@return clock B, the second clock asked for} */
    public ClockId clockB() {
        return b;
    }

    /** {@return clock A's value} */
    public long aNanos() {
        return aNanos;
    }

    /** {@return clock B's value at the same instant} */
    public long bNanos() {
        return bNanos;
    }

    /** {@return {@code bNanos() - aNanos()}: add it to an A timestamp to express it on clock B} */
    public long offsetNanos() {
        return bNanos - aNanos;
    }

    /** {@return how far apart the two reads may have been: 0 for one counter read converted twice} */
    public long widthNanos() {
        return widthNanos;
    }

    /** {@return true when both values come from one counter read} */
    public boolean isFromCounter() {
        return fromCounter;
    }

    @Override
    public String toString() {
        return "CrossTimestamp[" + a + "=" + aNanos + ", " + b + "=" + bNanos + ", offset=" + offsetNanos()
                + " ns, width=" + widthNanos + " ns" + (fromCounter ? ", one counter read" : "") + "]";
    }
}
