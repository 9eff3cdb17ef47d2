package org.timekeeping4j.device;

import java.lang.ref.Cleaner;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * A PTP hardware clock read at counter speed: the PHC's time from one read of MONOTONIC_RAW (exact mode's counter
 * read, {@link Clocks#nanos}), with the uncertainty of that estimate. Opened by {@link PtpClock#fast()}.
 *
 * <p><b>How.</b> The kernel's own design applied to a PHC: MONOTONIC_RAW is the clocksource, a {@link Timekeeper}
 * (mult/shift conversion, seqlock-published state, one writer) converts it, and its adjusted line is steered onto
 * the PHC by cross timestamps that a daemon thread takes off the read path ({@link PhcDiscipline}: PRECISE where the
 * driver has it, else EXTENDED, else clock_gettime triplets; the interval chosen from the PHC's measured stability).
 * A read is the timekeeper's read: no system call where exact mode serves MONOTONIC_RAW, nothing allocated.
 *
 * <p><b>Uncertainty.</b> {@link #now(TimeBounds)} fills [earliest, latest] around the PHC's own time (its scale,
 * usually TAI under PTP): the distance between the timekeeper's value and the newest cross timestamp's prediction,
 * plus half that cross timestamp's width, plus the rate estimate's error and a holdover allowance times the time
 * since it. A read whose cross timestamp is older than {@link #MAX_ANCHOR_AGE_NANOS} (the device stopped
 * answering, the thread starved) is unbounded and {@link TimeBounds.Status#UNKNOWN}. A step or a frequency change of
 * the PHC is found by the next cross timestamp (counted in {@link #disruptions()}); reads between the change and
 * it cannot know of it.
 *
 * <p><b>Assumptions and guarantees.</b> Reads are safe from any number of threads; {@link #now(TimeBounds)} takes a
 * holder per thread. The PHC's descriptor is this clock's own (opened again from the {@link PtpClock}'s path), used
 * by the discipline thread alone. {@link #close()} stops the thread and closes the descriptor; reads after it keep
 * extrapolating and turn unbounded at the age limit. A clock never closed is closed once it is unreachable (a
 * {@link Cleaner}: the thread holds the discipline, not this clock), so a forgotten one leaks no thread.
 */
public final class FastPtpClock implements AutoCloseable {

    /** A read whose cross timestamp is older than this is unbounded (fbclock refuses past 10 s), ns. */
    public static final long MAX_ANCHOR_AGE_NANOS = 10_000_000_000L;

    /** One thread for the library's clocks never closed. */
    private static final Cleaner CLEANER = Cleaner.create();

    private final Timekeeper timekeeper;
    private final PhcDiscipline discipline;
    private final long maxAgeNanos;
    /** Runs {@link Stop} once: at {@link #close()}, or once this clock is unreachable. */
    private final Cleaner.Cleanable stop;

    private FastPtpClock(PtpClock phc, long maxAgeNanos) {
        this.maxAgeNanos = maxAgeNanos;
        NtpAdjuster adjuster = new NtpAdjuster();
        PtpOffset first = phc.offset(ClockId.MONOTONIC_RAW, PtpClock.DEFAULT_SAMPLES);
        // 16 s of conversion: a shift fine enough for ppb steps at 1 GHz, room for a stalled discipline.
        this.timekeeper = Timekeeper.builder(new RawNanos()).adjustment(adjuster).conversionSeconds(16)
                .realtimeNanos(first.phcNanos() + (Clocks.nanos(ClockId.MONOTONIC_RAW) - first.systemNanos()))
                .build();
        this.discipline = new PhcDiscipline(phc, timekeeper, adjuster);
        discipline.discipline(); // the first anchor before any read
        Thread thread = Thread.ofPlatform().daemon().name("tk4j-phc " + phc.path()).unstarted(discipline);
        this.stop = CLEANER.register(this, new Stop(phc, discipline, thread));
        thread.start();
    }

    /** Starts the discipline over {@code phc}, which this clock owns from now on. */
    static FastPtpClock start(PtpClock phc) {
        return start(phc, MAX_ANCHOR_AGE_NANOS);
    }

    /** {@link #start(PtpClock)} with another age limit: tests. */
    static FastPtpClock start(PtpClock phc, long maxAgeNanos) {
        try {
            return new FastPtpClock(phc, maxAgeNanos);
        } catch (RuntimeException | Error e) { // an Error too: a thread that could not start leaves the descriptor
            phc.close();
            throw e;
        }
    }

    /**
     * The PHC's time now, estimated from one MONOTONIC_RAW read. Allocates nothing; no system call where exact mode
     * serves MONOTONIC_RAW.
     *
     * @return the PHC's time, ns on its own scale
     */
    public long nanos() {
        return timekeeper.realtimeNanos();
    }

    /**
     * The PHC's time now and its uncertainty, from one MONOTONIC_RAW read, into {@code into}: {@code nanos()} the
     * estimate, [earliest, latest] where the PHC's own time lies, status SYNCHRONIZED; UNKNOWN and unbounded
     * ([Long.MIN_VALUE, Long.MAX_VALUE]) before a cross timestamp or past {@link #MAX_ANCHOR_AGE_NANOS}. Allocates
     * nothing. {@link TimeBounds#source()} is null: this clock bounds the PHC, not true time. UNKNOWN too where
     * MONOTONIC_RAW reads earlier than the newest cross timestamp (a restore moved it back).
     *
     * @param into the caller's holder, overwritten
     * @return {@code into}
     */
    public TimeBounds now(TimeBounds into) {
        // The anchor before the counter read: its cross timestamp is older than the read, so the bound extrapolates
        // forwards only (an anchor published after the read may have found a step the read came before).
        PhcAnchor a = discipline.anchor(); // acquire: pairs with the discipline's release of a whole anchor
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW); // ordered: not before the load above
        long value = timekeeper.convert(raw, ClockId.REALTIME);
        into.nanos = value;
        into.counter = raw;
        into.source = null;
        long age = a == null ? Long.MAX_VALUE : raw - a.raw();
        if (age < 0 || age > maxAgeNanos) { // < 0: MONOTONIC_RAW moved back (a restore): nothing is known
            into.earliest = Long.MIN_VALUE;
            into.latest = Long.MAX_VALUE;
            into.status = TimeBounds.Status.UNKNOWN;
            return into;
        }
        long error = Math.abs(value - a.predict(raw)) + a.bound(age);
        into.earliest = value - error;
        into.latest = value + error;
        into.status = TimeBounds.Status.SYNCHRONIZED;
        return into;
    }

    /** {@return the newest anchor, or null before the first: tests} */
    PhcAnchor anchor() {
        return discipline.anchor();
    }

    /** {@return how the newest cross timestamp was taken; empty before the first} */
    public Optional<PtpClock.Method> method() {
        PhcAnchor a = discipline.anchor();
        return a == null ? Optional.empty() : Optional.of(a.method());
    }

    /** {@return ns of MONOTONIC_RAW since the newest cross timestamp, or -1 before the first} */
    public long anchorAgeNanos() {
        PhcAnchor a = discipline.anchor();
        return a == null ? -1 : Clocks.nanos(ClockId.MONOTONIC_RAW) - a.raw();
    }

    /** {@return the interval between cross timestamps the discipline chose last, ns} */
    public long intervalNanos() {
        PhcAnchor a = discipline.anchor();
        return a == null ? PhcDiscipline.MIN_INTERVAL_NANOS : a.intervalNanos();
    }

    /** {@return how many cross timestamps found the PHC outside the bound the one before had claimed} */
    public long disruptions() {
        PhcAnchor a = discipline.anchor();
        return a == null ? 0 : a.disruptions();
    }

    /** {@return why the last cross timestamp failed (the device went away, say); empty while they succeed} */
    public Optional<String> failure() {
        return Optional.ofNullable(discipline.failure());
    }

    /**
     * One line on the estimate: method, interval, anchor's age and width, the PHC's rate against MONOTONIC_RAW with
     * its error and the holdover allowance, disruptions.
     *
     * @return e.g. "PRECISE cross timestamps every 1000 ms, newest 12.3 ms ago, width 2 ns; rate +12.345 ppm
     *         +/- 0.001, holdover 20 ppb; 0 disruptions"
     */
    public String describe() {
        PhcAnchor a = discipline.anchor();
        if (a == null) {
            return "no cross timestamp yet";
        }
        return String.format(java.util.Locale.ROOT, "%s cross timestamps every %d ms, newest %.1f ms ago, width %d"
                        + " ns; rate %+.3f ppm +/- %.3f, holdover %.0f ppb; %d disruption%s%s", a.method(),
                a.intervalNanos() / 1_000_000, anchorAgeNanos() / 1e6, 2 * a.halfWidthNanos(), a.ratePpb() / 1e3,
                a.rateErrorPpb() / 1e3, a.holdoverPpb(), a.disruptions(), a.disruptions() == 1 ? "" : "s",
                failure().map(f -> "; last failed: " + f).orElse(""));
    }

    /** Stops the discipline thread and closes the PHC's descriptor (once; later calls do nothing). */
    @Override
    public void close() {
        stop.clean(); // at most once, whoever calls: the Cleaner's own guarantee
    }

    /** Stops the thread, then closes the descriptor it used. Holds no reference to the clock. */
    private record Stop(PtpClock phc, PhcDiscipline discipline, Thread thread) implements Runnable {
        @Override
        public void run() {
            discipline.close();
            LockSupport.unpark(thread);
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            phc.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** MONOTONIC_RAW in ns as a 1 GHz, 64-bit clocksource: exact mode's counter read and the kernel's CS_RAW. */
    private static final class RawNanos extends Clocksource {
        RawNanos() {
            super("monotonic_raw", 64, 1e9, 300, true, true);
        }

        @Override
        public long read() {
            return Clocks.nanos(ClockId.MONOTONIC_RAW);
        }
    }
}
