package org.timekeeping4j.tracking;

import java.util.Arrays;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.timekeeper.ConvertedNanos;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.timekeeper.Timekeeper;
import org.timekeeping4j.timekeeper.TimekeeperPage;

/**
 * Who serves the counter-backed clocks now: the one owner of the tracker's published pair of timekeepers, of
 * the floors the kernel path keeps above, and of the timekeeper pages a process-wide pair mirrors into.
 *
 * <p>Two timekeepers read one counter: the adjusted one, whose MONOTONIC line follows CLOCK_MONOTONIC (REALTIME,
 * BOOTTIME and TAI are offsets of it, as in the kernel), and the raw one, whose MONOTONIC line follows
 * CLOCK_MONOTONIC_RAW. {@link #line} and {@link #timekeeper(CounterClock)} are the one routing of a clock onto
 * them, by its descriptor's {@link CounterClock#raw() line}.
 *
 * <p>Written by one thread (the tracker's updater), read by any. A reader allocates nothing and takes no lock.
 */
public final class Publication {

    // Readers load these plain-volatile: null means "use the kernel" (not converged, rebuilding, stopped). The
    // floors are written before the volatile null store that publishes them (release), and read after the
    // volatile load that saw null (acquire). The pair is published raw first, adjusted last (a reader that sees
    // adjusted sees raw), and retired raw first too: while a pair retires a reader may see adjusted without raw,
    // which snapshot() checks.
    private volatile Timekeeper adjusted;
    private volatile Timekeeper raw;
    private final long[] floors = new long[ClockId.values().length];
    private volatile String reason = "starting";
    /** Moves whenever the serving timekeepers change (published, re-anchored, given up). */
    private volatile long sourceChangedSeq;
    // Written once before the updater thread starts (Thread.start orders it before the updater's reads), read
    // by the updater only.
    private TimekeeperPage adjustedMirror;
    private TimekeeperPage rawMirror;

    /** A publication nobody serves from yet: every read goes to the kernel. */
    public Publication() {
        Arrays.fill(floors, Long.MIN_VALUE);
    }

    /**
     * Mirrors every pair published from now on into {@code adjustedPage} and {@code rawPage}, so that readers of
     * those pages read the pair. Call before the tracker starts.
     *
     * @param adjustedPage the page for the adjusted timekeeper's records
     * @param rawPage      the page for the raw timekeeper's records
     */
    public void mirrorInto(TimekeeperPage adjustedPage, TimekeeperPage rawPage) {
        this.adjustedMirror = adjustedPage;
        this.rawMirror = rawPage;
    }

    /**
     * {@return the line of a tracker timekeeper that serves {@code clock}: MONOTONIC on the raw timekeeper for
     * the raw line's clock, the clock itself on the adjusted one}
     *
     * @param clock a counter-backed clock
     */
    public static ClockId lineClock(CounterClock clock) {
        return clock.raw() ? ClockId.MONOTONIC : clock.clock();
    }

    /** {@return the timekeeper serving {@code clock} now, or null while the kernel serves it} */
    public Timekeeper timekeeper(CounterClock clock) {
        return clock.raw() ? raw : adjusted; // volatile load: pairs with the store in publish()/retire()
    }

    /**
     * The clock's value: from its timekeeper while one serves and is fresh, else from the kernel, never below
     * what a fast read could have returned.
     *
     * @param clock a counter-backed clock
     * @return ns
     */
    public long nanos(CounterClock clock) {
        Timekeeper tk = timekeeper(clock);
        ClockId line = lineClock(clock);
        if (tk != null) {
            long v = tk.readFresh(line);
            if (v != Timekeeper.STALE) {
                return v;
            }
            return Math.max(ClockGettimeStub.clockGettimeNanos(clock.clock().id()), tk.freshCeiling(line));
        }
        // The volatile load in timekeeper() saw null: the floors written before the null store are visible.
        return Math.max(ClockGettimeStub.clockGettimeNanos(clock.clock().id()), floors[clock.clock().ordinal()]);
    }

    /**
     * Converts a counter value read in the last seconds to what {@link #nanos} returned at that counter value,
     * through the serving timekeeper's parameter history; a clock no counter read serves (COARSE, ALARM)
     * converts on the adjusted timekeeper as the timekeeper projects it.
     *
     * @throws IllegalStateException while no timekeeper serves
     */
    long convert(long counterValue, ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        return serving(c).convert(counterValue, c != null ? lineClock(c) : clock);
    }

    /**
     * As {@link #convert(long, ClockId)}, with the full result (history flag, clock-was-set sequence).
     *
     * @return {@code into.withinHistory()}
     */
    boolean convert(long counterValue, ClockId clock, ConvertedNanos into) {
        CounterClock c = CounterClock.of(clock);
        return serving(c).convert(counterValue, c != null ? lineClock(c) : clock, into);
    }

    private Timekeeper serving(CounterClock c) {
        Timekeeper tk = c != null ? timekeeper(c) : adjusted;
        if (tk == null) {
            throw new IllegalStateException("the fast path is not tracking the kernel: " + reason);
        }
        return tk;
    }

    /**
     * Fills a snapshot for a counter value the caller has just read: {@code clock} and MONOTONIC_RAW converted
     * with the parameters in force at that value.
     *
     * @return false (nothing written) when no pair serves, or the counter value is past its validity
     */
    public boolean snapshot(long counterValue, ClockId clock, ConvertedNanos clockOut,
                            ConvertedNanos rawOut) {
        Timekeeper a = adjusted; // adjusted first: published last, so raw is set too when it is
        Timekeeper r = raw;
        CounterClock c = CounterClock.of(clock);
        if (a == null || r == null || c == null) {
            return false;
        }
        Timekeeper tk = c.raw() ? r : a;
        // Past the validity a fast read would have used the kernel: so must the snapshot.
        if (!tk.isFresh(counterValue) || !r.isFresh(counterValue)) {
            return false;
        }
        tk.convert(counterValue, lineClock(c), clockOut);
        r.convert(counterValue, lineClock(CounterClock.MONOTONIC_RAW), rawOut);
        return clockOut.withinHistory();
    }

    /** {@return true while a pair serves reads from the counter} */
    public boolean isServing() {
        return adjusted != null;
    }

    /** {@return why the kernel serves, while it does} */
    public String reason() {
        return reason;
    }

    /** {@return a number that moves whenever the path serving the clocks changes (cs_was_changed_seq's analogue)} */
    public long sourceChangedSeq() {
        return sourceChangedSeq;
    }

    /**
     * Publishes a converged pair, unless it has not caught up with every value readers were given while the
     * kernel served them (the floors): publishing then would take a clock back. After a counter jump the old
     * state ran ahead, so the floors sit ahead of the kernel until it passes them.
     *
     * @return true if published
     */
    boolean publish(Timekeeper adjustedTk, Timekeeper rawTk) {
        long c = adjustedTk.clocksource().read();
        for (CounterClock clock : CounterClock.values()) {
            Timekeeper tk = clock.raw() ? rawTk : adjustedTk;
            if (tk.convert(c, lineClock(clock)) < floors[clock.clock().ordinal()]) {
                return false;
            }
        }
        // Mirroring starts before the pair is published, so that a page record is never fresher than its pair.
        if (adjustedMirror != null && adjustedTk.hasPage() && rawTk.hasPage()) {
            adjustedTk.mirrorTo(adjustedMirror);
            rawTk.mirrorTo(rawMirror);
        }
        raw = rawTk; // volatile store, before adjusted's: a reader that sees adjusted sees raw (see the fields)
        sourceChangedSeq++;
        adjusted = adjustedTk; // volatile store: publishes the converged pair to readers
        return true;
    }

    /** Routes readers to the kernel with {@code why}, never below what the pair serving now could have returned. */
    void retire(String why) {
        Timekeeper a = adjusted;
        Timekeeper r = raw;
        if (a != null) {
            // First make every fresh read end at one point: an update with zero validity pivots both lines at a
            // counter value c0, after which readFresh serves nothing past c0 (the mirrored pages receive the
            // update too, so they read stale from then on). A reader that validated an older state read its
            // counter before c0 (see TimekeeperWriter's class comment), so no fast read can ever have returned more
            // than the lines' values at c0: those are the floors. Computing floors from "now" instead would race
            // with readers still on the fast path (a floor from "now" was measured microseconds back).
            a.setValidityCycles(0);
            r.setValidityCycles(0);
            a.update();
            r.update();
            for (CounterClock clock : CounterClock.values()) {
                int i = clock.clock().ordinal();
                floors[i] = Math.max(floors[i], (clock.raw() ? r : a).freshCeiling(lineClock(clock)));
            }
        }
        reason = why;
        sourceChangedSeq++;
        raw = null; // retired first, as the fields' comment says: a reader may briefly see adjusted without raw
        adjusted = null; // volatile store after the floors: readers that see null see them
        if (a != null) {
            a.stopMirroring();
            r.stopMirroring();
        }
    }
}
