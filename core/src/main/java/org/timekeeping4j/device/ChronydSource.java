package org.timekeeping4j.device;

import java.io.IOException;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.config.Configuration;

/**
 * chronyd's tracking report, as ClockBound's daemon reads it: root delay / 2 + root dispersion + the correction
 * still being slewed, plus the maximum drift applied to the time since the measurements behind chronyd's last clock
 * update (its update interval before it, and the time since it; the
 * dispersion chronyd adds grows slower than a free-running clock can drift: ClockBound's formula alone
 * excluded true time in 579 of 1,400 samples of a lab run with the reference lost).
 */
final class ChronydSource implements BoundSource {
    /** The least time after chronyd's update that its bound counts as synchronized. */
    static final long FRESH_FLOOR_NANOS = 16_000_000_000L;
    /** The time after chronyd's update past which its bound means nothing (chrony's maxpoll default, 2^10 s). */
    static final long VOID_AFTER_NANOS = 1024_000_000_000L;
    private final Chronyd chronyd;
    /** The drift the bound assumes between measurements, ppb ({@link Configuration#BOUNDS_DRIFT}). */
    private final long driftPpb;
    /** chronyd's reference time at the last sample; refresher's own. */
    private java.time.Instant lastReference;
    /** When to sample next, ms: just after chronyd's next update is due; refresher's own. */
    private int next = 1000;
    /** The reference time chronyd reported when REALTIME was set: its update then predates the set. */
    private java.time.Instant referenceAtSet;
    /** The last tracking report; refresher's own. */
    private ChronydTracking last;

    ChronydSource(Chronyd chronyd) {
        this(chronyd, Configuration.PROCESS.boundsDriftPpb());
    }

    ChronydSource(Chronyd chronyd, long driftPpb) {
        this.chronyd = chronyd;
        this.driftPpb = driftPpb;
    }

    @Override
    public void realtimeSet() {
        referenceAtSet = lastReference;
    }

    /**
     * chronyd measured the sets at an update since the last of them: its last offset is as large as their sum,
     * within its own bound and 1% (an external set it then steps back or slews out; its own step).
     */
    @Override
    public boolean measured(long setNanos) {
        ChronydTracking t = last;
        if (t == null || !t.synchronised() || t.referenceTime().equals(referenceAtSet)) {
            return false;
        }
        double off = Math.abs(Math.abs(t.lastOffset() * 1e9) - Math.abs((double) setNanos));
        return off <= t.boundNanos() + Math.abs((double) setNanos) / 100;
    }

    @Override
    public ServedBounds.Anchor sample() {
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW); // before the request: the age is never understated
        long real = Clocks.nanos(ClockId.REALTIME);
        ChronydTracking t;
        try {
            t = chronyd.tracking();
        } catch (IOException e) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, e.getMessage());
        }
        if (!t.synchronised()) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, description() + ": not synchronised ("
                    + t.leap() + ")");
        }
        lastReference = t.referenceTime();
        last = t;
        next = untilNextUpdate(t, real);
        long sinceUpdate = Math.max(0, real - (t.referenceTime().getEpochSecond() * 1_000_000_000L
                + t.referenceTime().getNano()));
        // The drift grows from the measurements behind the update, not from the update: they span its update
        // interval before it (in the chrony lab, chronyd's statement just after the reference came back missed
        // true time by 30 us, 0.6 s after its update: the clock drifted from the samples it had measured).
        long sinceMeasured = sinceUpdate + (long) (Math.max(0, t.lastUpdateInterval()) * 1e9);
        long bound = satAdd(t.boundNanos(), ServedBounds.grow(sinceMeasured, driftPpb));
        // The update's measurements span the update interval before it; reckoned on REALTIME (stamped by
        // chronyd after any set, as it made the update after one), so never late. An update that chronyd
        // reported already when REALTIME was set predates the set.
        long basis = t.referenceTime().equals(referenceAtSet) ? Long.MIN_VALUE
                : raw - (long) ((sinceUpdate + Math.max(0, t.lastUpdateInterval()) * 1e9) * ServedBounds.AGE_PER_REALTIME) - 1;
        // Synchronized while chronyd updates as it has been (within 4 of its update intervals, 16 s at
        // least), then free-running; unknown past 1024 s, chrony's longest default polling interval.
        long freeAfter = Math.max(FRESH_FLOOR_NANOS, (long) (4e9 * Math.max(0, t.lastUpdateInterval())));
        boolean fresh = sinceUpdate < freeAfter;
        return new ServedBounds.Anchor(raw, real - raw, bound, driftPpb,
                fresh ? TimeBounds.Status.SYNCHRONIZED : TimeBounds.Status.FREE_RUNNING,
                fresh ? Math.min(freeAfter - sinceUpdate, 2L * periodMillis() * 1_000_000L) : 0,
                Math.max(0, VOID_AFTER_NANOS - sinceUpdate), description() + ": "
                        + (fresh ? "synchronised" : "no update for " + sinceUpdate / 1_000_000_000L + " s")
                        + ", bound " + bound + " ns (" + t.boundNanos() + " ns stated, "
                        + sinceUpdate / 1_000_000L + " ms since its update, " + Math.round(t.lastUpdateInterval())
                        + " s update interval)").basedAt(basis);
    }

    @Override
    public int periodMillis() {
        return 1000;
    }

    /**
     * Each chronyd update may state a larger bound than the served one has grown to (measured in the chrony
     * lab: at most refreshes of a 1 s period, by up to 0.6 us; docs/BOUNDS.md). So the next sample comes
     * {@link #AFTER_UPDATE_MILLIS} after chronyd's next update is due (its reference time plus its last update
     * interval), within 50 ms to the period; 250 ms while that is past.
     */
    @Override
    public int nextSampleMillis() {
        return next;
    }

    /** How long after chronyd's expected update the refresher samples it. */
    static final int AFTER_UPDATE_MILLIS = 20;

    static int untilNextUpdate(ChronydTracking t, long realNanos) {
        double due = t.referenceTime().getEpochSecond() + t.referenceTime().getNano() * 1e-9
                + t.lastUpdateInterval() - realNanos * 1e-9;
        long ms = Math.round(due * 1000) + AFTER_UPDATE_MILLIS;
        return ms < 50 ? 250 : ms > 1000 ? 1000 : (int) ms; // overdue (lost reference, first update): 4 a second
    }

    @Override
    public String description() {
        return "chronyd " + chronyd.endpoint();
    }

    private static long satAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }
}
