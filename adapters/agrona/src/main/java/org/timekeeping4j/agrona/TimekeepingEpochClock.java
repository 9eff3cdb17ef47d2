package org.timekeeping4j.agrona;

import java.util.Objects;
import org.agrona.concurrent.EpochClock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * An Agrona {@link EpochClock} reading CLOCK_REALTIME through timekeeping4j's fast path, in milliseconds since
 * the Unix epoch: the clock Agrona's own consumers take ({@code DistinctErrorLog}, {@code CountersManager},
 * {@code SnowflakeIdGenerator}).
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; {@link #time()}
 * allocates nothing. Wall-clock time: it can step backwards when the system time is set.
 */
public final class TimekeepingEpochClock implements EpochClock {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private static final TimekeepingEpochClock INSTANCE = new TimekeepingEpochClock(Clocks.reader(ClockId.REALTIME));

    private final ClockReader realtime;

    /** Tests substitute a recording reader here; users take {@link #getInstance()}. */
    TimekeepingEpochClock(ClockReader realtime) {
        this.realtime = realtime;
    }

    /**
     * The shared instance.
     *
     * @return the instance
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingEpochClock getInstance() {
        return INSTANCE;
    }

    /**
     * A clock reading {@code realtime} instead of the kernel's CLOCK_REALTIME: for tests, with the clocks of
     * timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param realtime read for every call, in nanoseconds since the epoch
     * @return the clock
     */
    public static TimekeepingEpochClock of(ClockReader realtime) {
        return new TimekeepingEpochClock(Objects.requireNonNull(realtime, "realtime"));
    }

    /** CLOCK_REALTIME in milliseconds since the Unix epoch (truncated, as System.currentTimeMillis is). */
    @Override
    public long time() {
        // Epoch nanoseconds are positive until 2262, so division truncates toward the past as floorDiv would.
        return realtime.nanos() / NANOS_PER_MILLI;
    }

    @Override
    public String toString() {
        return "TimekeepingEpochClock[REALTIME]";
    }
}
