package org.timekeeping4j.micrometer;

import java.util.Objects;
import io.micrometer.core.instrument.Clock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * A Micrometer {@link Clock} reading timekeeping4j's fast path: {@link #wallTime()} is CLOCK_REALTIME in
 * milliseconds since the epoch, {@link #monotonicTime()} is CLOCK_MONOTONIC in nanoseconds since boot.
 *
 * <pre>{@code
 * MeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, TimekeepingMicrometerClock.getInstance());
 * }</pre>
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; neither method
 * allocates. Timers measure with {@code monotonicTime()}; {@code wallTime()} only stamps publications
 * and step boundaries, so its millisecond truncation loses nothing a registry uses.
 */
public final class TimekeepingMicrometerClock implements Clock {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private static final TimekeepingMicrometerClock INSTANCE =
            new TimekeepingMicrometerClock(Clocks.reader(ClockId.REALTIME), Clocks.reader(ClockId.MONOTONIC));

    private final ClockReader realtime;
    private final ClockReader monotonic;

    /** Tests substitute recording readers here; users take {@link #getInstance()}. */
    TimekeepingMicrometerClock(ClockReader realtime, ClockReader monotonic) {
        this.realtime = realtime;
        this.monotonic = monotonic;
    }

    /**
     * The shared instance.
     *
     * @return the instance
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingMicrometerClock getInstance() {
        return INSTANCE;
    }

    /**
     * A clock reading {@code realtime} and {@code monotonic} instead of the kernel's clocks: for tests, with the
     * clocks of timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param realtime  read for the wall time, in nanoseconds since the epoch
     * @param monotonic read for the monotonic time, in nanoseconds
     * @return the clock
     */
    public static TimekeepingMicrometerClock of(ClockReader realtime, ClockReader monotonic) {
        return new TimekeepingMicrometerClock(Objects.requireNonNull(realtime, "realtime"), Objects.requireNonNull(monotonic, "monotonic"));
    }

    /** CLOCK_REALTIME in milliseconds since the Unix epoch (truncated, as System.currentTimeMillis is). */
    @Override
    public long wallTime() {
        // Epoch nanoseconds are positive until 2262, so division truncates toward the past as floorDiv would.
        return realtime.nanos() / NANOS_PER_MILLI;
    }

    /** CLOCK_MONOTONIC in nanoseconds since boot; only differences are meaningful. */
    @Override
    public long monotonicTime() {
        return monotonic.nanos();
    }

    @Override
    public String toString() {
        return "TimekeepingMicrometerClock[REALTIME, MONOTONIC]";
    }
}
