package org.timekeeping4j.device;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/** A ClockBound daemon's segment: its bound, drift and status as its own client computes them. */
final class ClockBoundSource implements BoundSource {
    private final ClockBound segment;
    private final TimeBounds read = new TimeBounds();
    private long lastAsOf = Long.MIN_VALUE;
    private long updateRaw = Long.MIN_VALUE;
    private long previousUpdateRaw = Long.MIN_VALUE;

    ClockBoundSource(ClockBound segment) {
        this.segment = segment;
    }

    @Override
    public ServedBounds.Anchor sample() {
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
            updateRaw = raw - (long) (Math.max(0, mono - asOf) * ServedBounds.AGE_PER_REALTIME) - 1; // MONOTONIC slews as REALTIME
            lastAsOf = asOf;
        }
        if (read.status != TimeBounds.Status.SYNCHRONIZED && read.status != TimeBounds.Status.FREE_RUNNING) {
            return ServedBounds.Anchor.unbounded(raw, read.status, segment.description() + ": " + read.status);
        }
        long voidAfter = read.voidAfterSec * 1_000_000_000L + read.voidAfterNsec;
        return new ServedBounds.Anchor(raw, offset, (read.latest - read.earliest + 1) / 2, read.maxDriftPpb, read.status,
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
