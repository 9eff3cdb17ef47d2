package org.timekeeping4j.log4j;

import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.core.time.PreciseClock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * A Log4j 2 {@link PreciseClock} reading CLOCK_REALTIME through timekeeping4j's fast path, so log events carry
 * nanosecond timestamps (epoch second plus nano-of-second in their {@code Instant}).
 *
 * <p>Log4j instantiates its clock itself, once, from a system property read when the first log event is
 * created; set it before any logging (on the command line, or first thing in {@code main}):
 *
 * <pre>{@code
 * -Dlog4j2.clock=org.timekeeping4j.log4j.TimekeepingLog4jClock
 * }</pre>
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless apart from its reader and safe for any number of threads;
 * neither method allocates (the caller owns the {@link MutableInstant}). Wall-clock time: it steps when the
 * system time is set, as Log4j's default clock does.
 */
public final class TimekeepingLog4jClock implements PreciseClock {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final ClockReader realtime;

    /**
     * The constructor Log4j's ClockFactory calls by reflection.
     *
     * @throws UnsupportedOperationException off Linux, saying why
     */
    public TimekeepingLog4jClock() {
        this(Clocks.reader(ClockId.REALTIME));
    }

    /** Tests substitute a recording reader here. */
    TimekeepingLog4jClock(ClockReader realtime) {
        this.realtime = realtime;
    }

    /** CLOCK_REALTIME in milliseconds since the Unix epoch (truncated, as System.currentTimeMillis is). */
    @Override
    public long currentTimeMillis() {
        // Epoch nanoseconds are positive until 2262, so division truncates toward the past as floorDiv would.
        return realtime.nanos() / NANOS_PER_MILLI;
    }

    /** Fills {@code instant} with CLOCK_REALTIME as epoch second and nano-of-second, from one read. */
    @Override
    public void init(MutableInstant instant) {
        long nanos = realtime.nanos();
        // Positive until 2262: plain division and remainder give the second and a nano-of-second in [0, 1e9).
        instant.initFromEpochSecond(nanos / NANOS_PER_SECOND, (int) (nanos % NANOS_PER_SECOND));
    }

    @Override
    public String toString() {
        return "TimekeepingLog4jClock[REALTIME]";
    }
}
