package org.timekeeping4j.testclocks;

import java.time.Duration;
import java.util.Objects;
import org.timekeeping4j.ClockReader;

/**
 * The clocks a test uses besides a {@link ManualClock}: one that never moves, and one that reads another clock
 * shifted, as {@code java.time.Clock.fixed} and {@code Clock.offset} are for {@code java.time}.
 */
public final class TestClocks {

    private TestClocks() {}

    /**
     * A clock that always reads {@code nanos}.
     *
     * @param nanos its value
     * @return the clock (stateless; allocates nothing per read)
     */
    public static ClockReader fixed(long nanos) {
        return new ClockReader() {
            @Override
            public long nanos() {
                return nanos;
            }

            @Override
            public String toString() {
                return "fixed[" + nanos + " ns]";
            }
        };
    }

    /**
     * A clock that reads {@code base} plus {@code offset}: a machine whose clock is ahead (positive) or behind.
     *
     * @param base   the clock read, e.g. a {@link ManualClock} or {@code Clocks.reader(ClockId.REALTIME)}
     * @param offset how far ahead of {@code base}
     * @return the clock (allocates nothing per read)
     * @throws ArithmeticException where the offset does not fit in nanoseconds (about 292 years)
     */
    public static ClockReader offset(ClockReader base, Duration offset) {
        Objects.requireNonNull(base, "base");
        long by = offset.toNanos();
        return new ClockReader() {
            @Override
            public long nanos() {
                return base.nanos() + by;
            }

            @Override
            public String toString() {
                return base + " " + (by < 0 ? "- " + -by : "+ " + by) + " ns";
            }
        };
    }
}
