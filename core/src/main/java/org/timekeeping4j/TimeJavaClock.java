package org.timekeeping4j;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * java.time.Clock over an epoch-based clock (REALTIME or TAI), read by {@link Clocks#nanos}: the fast path where
 * it serves, the kernel elsewhere. millis() and instant() allocate nothing beyond the Instant itself.
 */
final class TimeJavaClock extends Clock {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final ClockId clock;
    private final ZoneId zone;

    /** A clock typed as {@link Clock}: Clocks' verification then loads neither this class nor java.time's. */
    static Clock of(ClockId clock, ZoneId zone) {
        return new TimeJavaClock(clock, zone);
    }

    private TimeJavaClock(ClockId clock, ZoneId zone) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(this.zone) ? this : new TimeJavaClock(clock, zone);
    }

    @Override
    public long millis() {
        return Math.floorDiv(Clocks.nanos(clock), 1_000_000L);
    }

    @Override
    public Instant instant() {
        long nanos = Clocks.nanos(clock);
        return Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TimeJavaClock k && k.clock == clock && k.zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return clock.hashCode() * 31 + zone.hashCode();
    }

    @Override
    public String toString() {
        return "TimeJavaClock[" + clock.kernelName() + "," + zone + "]";
    }
}
