package org.timekeeping4j.agrona;

import java.util.Objects;
import org.agrona.concurrent.EpochNanoClock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * An Agrona {@link EpochNanoClock} reading CLOCK_REALTIME through timekeeping4j's fast path: nanoseconds
 * since the Unix epoch, at the kernel's nanosecond resolution.
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; {@link #nanoTime()}
 * allocates nothing. Wall-clock time: it can step backwards when the system time is set.
 */
public final class TimekeepingEpochNanoClock implements EpochNanoClock {

    private static final TimekeepingEpochNanoClock INSTANCE =
            new TimekeepingEpochNanoClock(Clocks.reader(ClockId.REALTIME));

    private final ClockReader realtime;

    /** Tests substitute a recording reader here; users take {@link #getInstance()}. */
    TimekeepingEpochNanoClock(ClockReader realtime) {
        this.realtime = realtime;
    }

    /**
     * The shared instance.
     *
     * @return the instance
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingEpochNanoClock getInstance() {
        return INSTANCE;
    }

    /**
     * A clock reading {@code realtime} instead of the kernel's CLOCK_REALTIME: for tests, with the clocks of
     * timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param realtime read for every call, in nanoseconds since the epoch
     * @return the clock
     */
    public static TimekeepingEpochNanoClock of(ClockReader realtime) {
        return new TimekeepingEpochNanoClock(Objects.requireNonNull(realtime, "realtime"));
    }

    /** CLOCK_REALTIME in nanoseconds since the Unix epoch. */
    @Override
    public long nanoTime() {
        return realtime.nanos();
    }

    @Override
    public String toString() {
        return "TimekeepingEpochNanoClock[REALTIME]";
    }
}
