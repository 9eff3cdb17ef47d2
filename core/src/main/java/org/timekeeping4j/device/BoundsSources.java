package org.timekeeping4j.device;

import static org.timekeeping4j.device.ServedBounds.AGE_PER_REALTIME;
import static org.timekeeping4j.device.ServedBounds.KERNEL_GROWTH_PPB;
import static org.timekeeping4j.device.ServedBounds.grow;

import java.io.IOException;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Snapshot;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.device.ServedBounds.Anchor;
import org.timekeeping4j.device.ServedBounds.Source;

/**
 * The sources {@link ServedBounds} samples, each into an {@link Anchor} with the basis of its bound: the kernel's
 * NTP state, chronyd's tracking report, a ClockBound daemon's segment.
 */
final class BoundsSources {

    private BoundsSources() {}

    /**
     * The kernel's NTP state: maxerror as the daemon last wrote it, growing 500 ppm as the kernel grows it. The
     * kernel adds 500 us at each second's overflow; any other change is a daemon's write (an update). An update
     * rests on measurements made since the one before, so a bound's basis is the update before the last.
     */
    static final class AdjtimexSource implements Source {
        private long lastMaxError = -1;
        private long lastRaw;
        private long updateRaw = Long.MIN_VALUE;
        private long previousUpdateRaw = Long.MIN_VALUE;

        @Override
        public Anchor sample() {
            Anchor a = read();
            return a.basedAt(previousUpdateRaw);
        }

        private Anchor read() {
            Snapshot before = Clocks.snapshot(ClockId.REALTIME, new Snapshot());
            SyncStatus s = SyncStatus.read();
            long raw = before.rawNanos();
            long offset = before.nanos() - raw;
            if (!s.isAvailable()) {
                return Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, "adjtimex: refused (seccomp, ProtectClock=)");
            }
            if (!s.isSynchronized()) {
                return Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN,
                        "adjtimex: the kernel's clock is not synchronised (no daemon, or maxerror past 16 s)");
            }
            if (s.maxErrorMicros() == 0) {
                return Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN,
                        "adjtimex: maxerror 0: no bound stated (phc2sys writes 0; chronyd, below 1 us)");
            }
            noteWrite(s.maxErrorMicros(), raw);
            long bound = Math.multiplyExact(s.maxErrorMicros(), 1000L);
            return new Anchor(raw, offset, bound, KERNEL_GROWTH_PPB, TimeBounds.Status.SYNCHRONIZED,
                    2L * periodMillis() * 1_000_000L, Long.MAX_VALUE,
                    "adjtimex: maxerror " + s.maxErrorMicros() + " us, synchronised");
        }

        /** Notes an update where maxerror changed otherwise than by the kernel's 500 us a second. */
        private void noteWrite(long maxErrorMicros, long raw) {
            long grown = maxErrorMicros - lastMaxError;
            long seconds = (raw - lastRaw) / 1_000_000_000L + 2; // second overflows since: at most this many
            if (lastMaxError >= 0 && (grown < 0 || grown % 500 != 0 || grown > 500 * seconds)) {
                previousUpdateRaw = updateRaw;
                updateRaw = lastRaw; // written after the last sample, before this one
            }
            lastMaxError = maxErrorMicros;
            lastRaw = raw;
        }

        @Override
        public int periodMillis() {
            return 1000;
        }

        @Override
        public String description() {
            return "adjtimex";
        }
    }

    /**
     * chronyd's tracking report, as ClockBound's daemon reads it: root delay / 2 + root dispersion + the correction
     * still being slewed, plus the maximum drift applied to the time since chronyd's last clock update (the
     * dispersion chronyd adds grows slower than a free-running clock can drift: ClockBound's formula alone
     * excluded true time in 579 of 1,400 samples of a lab run with the reference lost).
     */
    static final class ChronydSource implements Source {
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

        @Override
        public Anchor sample() {
            long raw = Clocks.nanos(ClockId.MONOTONIC_RAW); // before the request: the age is never understated
            long real = Clocks.nanos(ClockId.REALTIME);
            ChronydTracking t;
            try {
                t = chronyd.tracking();
            } catch (IOException e) {
                return Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, e.getMessage());
            }
            if (!t.synchronised()) {
                return Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, description() + ": not synchronised ("
                        + t.leap() + ")");
            }
            lastReference = t.referenceTime();
            next = untilNextUpdate(t, real);
            long sinceUpdate = Math.max(0, real - (t.referenceTime().getEpochSecond() * 1_000_000_000L
                    + t.referenceTime().getNano()));
            long bound = satAdd(t.boundNanos(), grow(sinceUpdate, driftPpb));
            // The update's measurements span the update interval before it; reckoned on REALTIME (stamped by
            // chronyd after any set, as it made the update after one), so never late. An update that chronyd
            // reported already when REALTIME was set predates the set.
            long basis = t.referenceTime().equals(referenceAtSet) ? Long.MIN_VALUE
                    : raw - (long) ((sinceUpdate + Math.max(0, t.lastUpdateInterval()) * 1e9) * AGE_PER_REALTIME) - 1;
            // Synchronized while chronyd updates as it has been (within 4 of its update intervals, 16 s at
            // least), then free-running; unknown past 1024 s, chrony's longest default polling interval.
            long freeAfter = Math.max(FRESH_FLOOR_NANOS, (long) (4e9 * Math.max(0, t.lastUpdateInterval())));
            boolean fresh = sinceUpdate < freeAfter;
            return new Anchor(raw, real - raw, bound, driftPpb,
                    fresh ? TimeBounds.Status.SYNCHRONIZED : TimeBounds.Status.FREE_RUNNING,
                    fresh ? Math.min(freeAfter - sinceUpdate, 2L * periodMillis() * 1_000_000L) : 0,
                    Math.max(0, VOID_AFTER_NANOS - sinceUpdate), description() + ": "
                            + (fresh ? "synchronised" : "no update for " + sinceUpdate / 1_000_000_000L + " s")
                            + ", bound " + bound + " ns (" + t.boundNanos() + " ns stated, "
                            + sinceUpdate / 1_000_000L + " ms since its update)").basedAt(basis);
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
    }

    private static long satAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }

    /** A ClockBound daemon's segment: its bound, drift and status as its own client computes them. */
    static final class ClockBoundSource implements Source {
        private final ClockBound segment;
        private final TimeBounds read = new TimeBounds();
        private long lastAsOf = Long.MIN_VALUE;
        private long updateRaw = Long.MIN_VALUE;
        private long previousUpdateRaw = Long.MIN_VALUE;

        ClockBoundSource(ClockBound segment) {
            this.segment = segment;
        }

        @Override
        public Anchor sample() {
            segment.readSegment(read);
            // After the segment (its as_of may be newer than a clock read before it), MONOTONIC_RAW first: the age
            // counted from it is never understated, nor is the time since as_of on precise MONOTONIC (the
            // segment's own client reads COARSE, which lags by up to a tick).
            long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
            long mono = Clocks.nanos(ClockId.MONOTONIC);
            long real = Clocks.nanos(ClockId.REALTIME);
            segment.at(read, real, mono);
            long offset = real - raw;
            // The daemon's update (as_of) rests on chronyd's state since its update before: the basis.
            long asOf = read.asOfSec * 1_000_000_000L + read.asOfNsec;
            if (asOf != lastAsOf) {
                previousUpdateRaw = updateRaw;
                updateRaw = raw - (long) (Math.max(0, mono - asOf) * AGE_PER_REALTIME) - 1; // MONOTONIC slews as REALTIME
                lastAsOf = asOf;
            }
            if (read.status != TimeBounds.Status.SYNCHRONIZED && read.status != TimeBounds.Status.FREE_RUNNING) {
                return Anchor.unbounded(raw, read.status, segment.description() + ": " + read.status);
            }
            long voidAfter = read.voidAfterSec * 1_000_000_000L + read.voidAfterNsec;
            return new Anchor(raw, offset, (read.latest - read.earliest + 1) / 2, read.maxDriftPpb, read.status,
                    2L * periodMillis() * 1_000_000L, Math.max(0, voidAfter - mono),
                    segment.description() + ": " + read.status + ", bound " + (read.latest - read.earliest) / 2
                            + " ns, drift " + read.maxDriftPpb + " ppb").basedAt(previousUpdateRaw);
        }

        @Override
        public int periodMillis() {
            return 250;
        }

        @Override
        public String description() {
            return segment.description();
        }
    }
}
