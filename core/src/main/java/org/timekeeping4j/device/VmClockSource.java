package org.timekeeping4j.device;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.config.Configuration;

/**
 * A VMClock page's own time, where the hypervisor publishes it with a maximum error: REALTIME compared with the
 * page's interval at one counter read, bracketed by two REALTIME reads, so the bound says how far REALTIME is
 * from true time at that instant, whoever steers REALTIME. Between samples it grows at the stated drift
 * ({@link Configuration#BOUNDS_DRIFT}): REALTIME's own against true time, which the page does not see.
 */
final class VmClockSource implements BoundSource {
    private final VmClock clock;
    private final long driftPpb;
    private final TimeBounds read = new TimeBounds();

    VmClockSource(VmClock clock) {
        this(clock, Configuration.PROCESS.boundsDriftPpb());
    }

    VmClockSource(VmClock clock, long driftPpb) {
        this.clock = clock;
        this.driftPpb = driftPpb;
    }

    /** {@return null where the page serves its time with a bound now, else why not} */
    static String serves(VmClock clock) {
        try {
            TimeBounds b = clock.now(new TimeBounds());
            return b.widthNanos() == Long.MAX_VALUE ? "it publishes no maximum error" : null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    @Override
    public ServedBounds.Anchor sample() {
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW); // first: the age counted from it is never understated
        long r0 = Clocks.nanos(ClockId.REALTIME);
        try {
            clock.now(read);
        } catch (IllegalStateException e) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, description() + ": " + e.getMessage());
        }
        long r1 = Clocks.nanos(ClockId.REALTIME);
        if (read.widthNanos() == Long.MAX_VALUE) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN,
                    description() + ": the page publishes no maximum error");
        }
        // True time at the page's counter read lies in [earliest, latest]; REALTIME then lay in [r0, r1]. So true
        // minus REALTIME lies in [earliest - r1, latest - r0]: the half-width around REALTIME is the larger side.
        long bound = Math.max(Math.max(r1 - read.earliestNanos(), read.latestNanos() - r0), 0);
        return new ServedBounds.Anchor(raw, r0 - raw, bound, driftPpb, read.status(),
                2L * periodMillis() * 1_000_000L, Long.MAX_VALUE,
                description() + ": " + read.status() + ", REALTIME within " + bound / 1_000 + " us of the page's time"
                        + " (its own bound " + read.widthNanos() / 2_000 + " us)");
    }

    /** Each sample compares REALTIME with the page directly: a set of REALTIME before it is measured by it. */
    @Override
    public boolean measured(long setNanos) {
        return true;
    }

    @Override
    public int periodMillis() {
        return 250;
    }

    @Override
    public String description() {
        return clock.description();
    }
}
