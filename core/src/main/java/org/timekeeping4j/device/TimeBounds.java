package org.timekeeping4j.device;

/**
 * A TrueTime-style reading: true time lies in [earliest, latest] (nanoseconds since the epoch,
 * CLOCK_REALTIME's scale; TAI's where a {@link VmClock} was asked for TAI), with the source's own estimate
 * ({@link #nanos()}), a status saying how far to trust it and the clock that produced it ({@link #source()}).
 * Where the source publishes no bound the interval is [Long.MIN_VALUE, Long.MAX_VALUE].
 *
 * <p>A caller-owned, reusable holder: {@link BoundedClock#now(TimeBounds)} fills it without allocating.
 * Not thread-safe: one holder per thread.
 */
public final class TimeBounds {

    /** How far to trust the bounds (ClockBound's clock_status, or the adjtimex sync rule). */
    public enum Status {
        /** Nothing is known: the bounds are no guarantee. */
        UNKNOWN,
        /** A daemon keeps the clock synchronised and the bound is fresh. */
        SYNCHRONIZED,
        /** The clock runs on its own; the bound grows with the maximum drift. */
        FREE_RUNNING,
        /** The clock was disrupted (e.g. the VM was migrated); the bounds are no guarantee. */
        DISRUPTED
    }

    /**
     * Whether the hypervisor expects to disrupt the clock (VMClock's flags: a live migration announced). The
     * status says what the bounds are worth now; this says they may soon be worth nothing: drain or hand over
     * work that needs them, and expect {@link Status#DISRUPTED} after the disruption.
     */
    public enum Disruption {
        /** None expected, or no VMClock page to say so. */
        NONE,
        /** DISRUPTION_SOON: a disruption is expected soon. */
        SOON,
        /** DISRUPTION_IMMINENT: a disruption is about to happen. */
        IMMINENT
    }

    /** Empty bounds (status UNKNOWN) for a {@link BoundedClock} to fill. */
    public TimeBounds() {
    }

    long earliest;
    long latest;
    long nanos;
    Status status = Status.UNKNOWN;
    BoundedClock source;

    // The ClockBound segment's body as last read (valid when the source is a ClockBound); package-private so the
    // reader fills them without allocating and the tests can check a snapshot is never torn.
    long asOfSec;
    long asOfNsec;
    long voidAfterSec;
    long voidAfterNsec;
    long boundNsec;
    long disruptionMarker;
    long maxDriftPpb;
    int clockStatus;
    int disruptionSupport;
    /** The {@link Disruption} ordinal a VMClock page's flags stated (valid when the source watches a page). */
    int expectation;

    // A VMClock read (valid when the source is a VmClock): the page's time as (u64 seconds, ns) before any scale
    // change, and the counter value it was computed at; a FastPtpClock read: counter is its MONOTONIC_RAW value.
    long seconds;
    long nanosOfSecond;
    long counter;

    /** {@return the earliest possible true time, ns since the epoch} */
    public long earliestNanos() {
        return earliest;
    }

    /** {@return the latest possible true time, ns since the epoch} */
    public long latestNanos() {
        return latest;
    }

    /** {@return the source's estimate of true time, ns since the epoch (the clock read; the VMClock page's time)} */
    public long nanos() {
        return nanos;
    }

    /** {@return latest - earliest, saturating at Long.MAX_VALUE} */
    public long widthNanos() {
        long w = latest - earliest;
        return w < 0 ? Long.MAX_VALUE : w;
    }

    /** {@return how far to trust the bounds} */
    public Status status() {
        return status;
    }

    /**
     * The clock that filled the bounds: a ClockBound segment's, {@link BoundedClock#adjtimex()}'s or a
     * {@link VmClock}; its {@link BoundedClock#description()} names it ({@code clockbound /var/run/clockbound/shm0},
     * {@code adjtimex}, {@code vmclock /dev/vmclock0}). It may have been closed since.
     *
     * @return the clock, or null while nothing filled these bounds
     */
    public BoundedClock source() {
        return source;
    }

    /** {@return the disruption marker of the ClockBound segment or the VMClock page read (0 from adjtimex)} */
    public long disruptionMarker() {
        return source instanceof ClockBound || source instanceof VmClock ? disruptionMarker : 0;
    }

    /**
     * Whether a disruption was expected when the bounds were read: the VMClock page's DISRUPTION_SOON and
     * DISRUPTION_IMMINENT flags, as a {@link VmClock} read them or as {@link BoundedClock#system()} read them
     * where it watches the page ({@code Clocks.diagnostics().bounds()} says whether it does);
     * {@link BoundedClock#awaitDisruption} waits for a change.
     *
     * @return {@link Disruption#NONE} unless the page the source read said SOON or IMMINENT
     */
    public Disruption disruptionExpected() {
        return source instanceof VmClock || (source instanceof ServedBounds s && s.watches())
                ? VmClockWatch.disruption(expectation) : Disruption.NONE;
    }

    /**
     * The bounds now from the system's source ({@link BoundedClock#system()}): convenience that opens
     * and closes the source and allocates; keep a {@link BoundedClock} open for repeated reads.
     *
     * @return new bounds
     * @throws DeviceException when a ClockBound segment exists but is unusable
     */
    public static TimeBounds now() throws DeviceException {
        try (BoundedClock clock = BoundedClock.system()) {
            return clock.now(new TimeBounds());
        }
    }

    @Override
    public String toString() {
        return "TimeBounds[nanos=" + nanos + ", earliest=" + earliest + ", latest=" + latest + ", width=" + widthNanos() + "ns, status="
                + status + (disruptionExpected() != Disruption.NONE ? ", disruption " + disruptionExpected() : "")
                + ", source=" + (source == null ? null : source.description()) + "]";
    }
}
