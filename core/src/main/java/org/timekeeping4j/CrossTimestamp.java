package org.timekeeping4j;

import org.timekeeping4j.serving.Capture;

/**
 * Two clocks at one instant, with the uncertainty: what {@link Clocks#crossTimestamp} fills. For users who
 * correlate logs or events across clocks (REALTIME against MONOTONIC_RAW, BOOTTIME against TAI, ...).
 * Caller-owned, reusable, allocation-free to fill; one per thread.
 *
 * <p>Not a {@link Snapshot}: a snapshot is a capture (the ticks of one counter read, one clock and MONOTONIC_RAW
 * at exactly that read, for converting and ordering events later); a cross timestamp relates any two clocks and
 * says how sure it is ({@link #widthNanos()}: 0 from one counter read, else the narrowest bracket found).
 */
public final class CrossTimestamp {

    /** What the serving mode fills (clock A's and clock B's values, the width), owned here. */
    final Capture capture = new Capture();
    ClockId a;
    ClockId b;

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
        return capture.a();
    }

    /** {@return clock B's value at the same instant} */
    public long bNanos() {
        return capture.b();
    }

    /** {@return {@code bNanos() - aNanos()}: add it to an A timestamp to express it on clock B} */
    public long offsetNanos() {
        return capture.b() - capture.a();
    }

    /** {@return how far apart the two reads may have been: 0 for one counter read converted twice} */
    public long widthNanos() {
        return capture.widthNanos();
    }

    /** {@return true when both values come from one counter read} */
    public boolean isFromCounter() {
        return capture.fromCounter();
    }

    @Override
    public String toString() {
        return "CrossTimestamp[" + a + "=" + aNanos() + ", " + b + "=" + bNanos() + ", offset=" + offsetNanos()
                + " ns, width=" + widthNanos() + " ns" + (isFromCounter() ? ", one counter read" : "") + "]";
    }
}
