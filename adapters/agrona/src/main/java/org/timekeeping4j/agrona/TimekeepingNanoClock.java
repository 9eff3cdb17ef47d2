package org.timekeeping4j.agrona;

import java.util.Objects;
import org.agrona.concurrent.NanoClock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * An Agrona {@link NanoClock} reading CLOCK_MONOTONIC through timekeeping4j's fast path: nanoseconds since
 * boot, only differences meaningful.
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; {@link #nanoTime()}
 * allocates nothing. Never steps; runs at the NTP-slewed rate, the same as CLOCK_REALTIME, so durations
 * it measures agree with {@link TimekeepingEpochNanoClock} differences between clock steps.
 */
public final class TimekeepingNanoClock implements NanoClock {

    private static final TimekeepingNanoClock INSTANCE = new TimekeepingNanoClock(Clocks.reader(ClockId.MONOTONIC));

    private final ClockReader monotonic;

    /** Tests substitute a recording reader here; users take {@link #getInstance()}. */
    TimekeepingNanoClock(ClockReader monotonic) {
        this.monotonic = monotonic;
    }

    /**
     * The shared instance.
     *
     * @return the instance
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingNanoClock getInstance() {
        return INSTANCE;
    }

    /**
     * A clock reading {@code monotonic} instead of the kernel's CLOCK_MONOTONIC: for tests, with the clocks of
     * timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param monotonic read for every call, in nanoseconds
     * @return the clock
     */
    public static TimekeepingNanoClock of(ClockReader monotonic) {
        return new TimekeepingNanoClock(Objects.requireNonNull(monotonic, "monotonic"));
    }

    /** CLOCK_MONOTONIC in nanoseconds since boot. */
    @Override
    public long nanoTime() {
        return monotonic.nanos();
    }

    @Override
    public String toString() {
        return "TimekeepingNanoClock[MONOTONIC]";
    }
}
