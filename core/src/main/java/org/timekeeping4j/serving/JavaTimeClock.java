package org.timekeeping4j.serving;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import org.timekeeping4j.ClockId;

/**
 * java.time.Clock over an epoch-based clock (REALTIME or TAI), read as Clocks.nanos reads it ({@link FastPath#nanos}):
 * the serving backend's read. millis() and instant() allocate nothing beyond the Instant itself.
 */
public final class JavaTimeClock extends Clock {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final ClockId clock;
    private final ZoneId zone;

    /**
     * A clock typed as {@link Clock}: Clocks' verification then loads neither this class nor java.time's.
     *
     * @param clock REALTIME or TAI (the caller checks)
     * @param zone  the zone the clock reports
     * @return the clock
     */
    public static Clock of(ClockId clock, ZoneId zone) {
        return new JavaTimeClock(clock, zone);
    }

    private JavaTimeClock(ClockId clock, ZoneId zone) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(this.zone) ? this : new JavaTimeClock(clock, zone);
    }

    @Override
    public long millis() {
        return Math.floorDiv(FastPath.nanos(clock), 1_000_000L);
    }

    @Override
    public Instant instant() {
        long nanos = FastPath.nanos(clock);
        return Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JavaTimeClock k && k.clock == clock && k.zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return clock.hashCode() * 31 + zone.hashCode();
    }

    @Override
    public String toString() {
        return "JavaTimeClock[" + clock.kernelName() + "," + zone + "]";
    }
}
