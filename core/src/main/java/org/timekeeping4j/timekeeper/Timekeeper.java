package org.timekeeping4j.timekeeper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.ClockAdjustment;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.MultShift;

/**
 * The read path of kernel/time/timekeeping.c in Java: a counter ({@link Clocksource}) turned into
 * REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their COARSE variants and user clocks.
 *
 * <h2>State</h2>
 * Two read bases ({@link TkReadBase}, the kernel's tk_read_base): the adjusted line (tkr_mono: MONOTONIC,
 * its mult steered by a {@link ClockAdjustment}) and the raw line (tkr_raw: MONOTONIC_RAW, fixed mult).
 * REALTIME = MONOTONIC + offsReal, BOOTTIME = MONOTONIC + offsBoot, TAI = MONOTONIC + offsTai ({@link Projection}
 * is the table of what each read returns). Both lines share one shift, chosen by {@link MultShift#calculate}
 * for {@link TimekeeperBuilder#conversionSeconds} (default 4 s) rather than the clocksource's 600 s: a larger
 * shift gives the adjusted line a finer frequency step ({@code 1/mult}, below 0.5 ppb for counters from
 * 24 MHz to 3 GHz) at the cost of a shorter max_cycles.
 *
 * <h2>Publication and monotonicity</h2>
 * A seqlock over a ring of states. One writer ({@link TimekeeperWriter}: the protocol, and why every clock
 * stays monotonic across an update whatever the slope change) builds the next state in the slot after the
 * newest and publishes it by moving the sequence from odd to even. Readers ({@link TimekeeperReader}) copy
 * the newest state's fields to locals, read the counter, and validate that the sequence did not change:
 * lock-free, and wait-free except when they overlap the writer's short odd window.
 *
 * <h2>Updates and history</h2>
 * Call {@link #update()} from one thread at least every {@link #maxIdleNanos()}, e.g. every 100 ms. The
 * ring holds the last {@link TimekeeperBuilder#historySize} published states (64 by default: 6.4 s at 100 ms
 * updates). {@link #convert(long, ClockId)} converts a counter value read earlier with the state that was
 * in force at that counter value, i.e. to exactly what a read returning that counter value returned
 * (a value equal to an update's c0 converts with the state that update published).
 */
public final class Timekeeper {

    static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The publication sequence {@link #seq}: read by {@link TimekeeperReader}, written by {@link TimekeeperWriter}. */
    static final VarHandle SEQ;

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(Timekeeper.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Clocksource clocksource;
    final long mask;
    /** Deltas above this are counter values before cycle_last. */
    final long halfMask;
    final int shift;
    private final long rawMult;
    /** The published states; the newest is ring[generation & ringMask]. */
    final TimekeeperState[] ring;
    final int ringMask;
    private final UserClocks userClocks = new UserClocks();
    /** Every mutation of the published state. */
    private final TimekeeperWriter writer;

    /**
     * The publication sequence: odd while the writer is inside its window, else 2 * generation; the
     * newest state is ring[generation & ringMask]. Accessed only through SEQ.
     */
    @SuppressWarnings("unused")
    private long seq;

    Timekeeper(TimekeeperBuilder b) {
        this.clocksource = b.clocksource;
        this.mask = clocksource.mask();
        this.halfMask = mask >>> 1;
        MultShift ms = MultShift.calculate(Math.round(clocksource.frequencyHz()), NANOS_PER_SECOND, b.conversionSeconds);
        if (ms.shift() < 1) {
            throw new IllegalArgumentException("counter too fast for a shift >= 1: " + clocksource);
        }
        this.shift = ms.shift();
        this.rawMult = ms.mult();
        this.ring = TimekeeperState.ring(b.historySize, mask, shift);
        this.ringMask = ring.length - 1;
        this.writer = new TimekeeperWriter(this, b); // publishes the first state: the last store readers depend on
    }

    /**
     * Starts the configuration of a timekeeper over {@code clocksource}.
     *
     * @param clocksource the counter every clock of the timekeeper is computed from
     * @return a builder with the defaults: every clock at 0, no adjustment, 64 states of history
     */
    public static TimekeeperBuilder builder(Clocksource clocksource) {
        return new TimekeeperBuilder(clocksource);
    }

    // ------------------------------------------------------------------------------------------------
    // Readers

    /**
     * {@return CLOCK_REALTIME in ns since the Unix epoch (UTC: an inserted leap second repeats its second);
     * lock-free, allocation-free}
     */
    public long realtimeNanos() {
        return read(Projection.REALTIME);
    }

    /**
     * {@return CLOCK_MONOTONIC in ns from the builder's {@link TimekeeperBuilder#monotonicNanos} origin, at the
     * adjusted rate; not counting time suspended, never going back}
     */
    public long monotonicNanos() {
        return read(Projection.MONOTONIC);
    }

    /**
     * {@return CLOCK_MONOTONIC_RAW in ns from the same origin as MONOTONIC, at the counter's nominal rate
     * (no adjustment); not counting time suspended}
     */
    public long monotonicRawNanos() {
        return read(Projection.MONOTONIC_RAW);
    }

    /** {@return CLOCK_BOOTTIME in ns: MONOTONIC plus the time suspended (see {@link #boottimeOffsetNanos()})} */
    public long boottimeNanos() {
        return read(Projection.BOOTTIME);
    }

    /** {@return CLOCK_TAI in ns since the epoch: REALTIME plus the TAI offset, continuous across leap seconds} */
    public long taiNanos() {
        return read(Projection.TAI);
    }

    /** {@return CLOCK_REALTIME_COARSE in ns since the epoch: REALTIME at the last update, no counter read} */
    public long realtimeCoarseNanos() {
        return read(Projection.REALTIME_COARSE);
    }

    /** {@return CLOCK_MONOTONIC_COARSE in ns: MONOTONIC at the last update, no counter read} */
    public long monotonicCoarseNanos() {
        return read(Projection.MONOTONIC_COARSE);
    }

    /** {@return TAI - UTC in whole seconds now (changes by one exactly at a leap second; reads the counter)} */
    public int taiOffsetSeconds() {
        return (int) (read(Projection.TAI_OFFSET) / NANOS_PER_SECOND);
    }

    /**
     * The clock {@code clock} in ns.
     *
     * @param clock REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, a COARSE or ALARM variant (an ALARM id
     *              reads as its base clock), or an AUX id with a user clock ({@link #createUserClock})
     * @return the clock's value in ns, as the per-clock method returns it
     * @throws IllegalArgumentException for a CPU-time clock or an AUX clock without a user clock
     */
    public long nanos(ClockId clock) {
        Projection p = Projection.of(clock);
        return p != null ? read(p) : userClocks.require(clock).nanos();
    }

    /** A read of projection {@code p}: the Java seqlock reader, {@code p}'s fields folding where it is constant. */
    private long read(Projection p) {
        return TimekeeperReader.read(this, p);
    }

    // ------------------------------------------------------------------------------------------------
    // History

    /**
     * {@link #convert(long, ClockId, ConvertedNanos)} returning just the value. Allocates nothing.
     *
     * @param counter a value of this timekeeper's clocksource, read earlier
     * @param clock   any clock {@link #nanos(ClockId)} accepts
     * @return the clock's value in ns at that counter value, as a read returning that counter value returned
     * @throws IllegalArgumentException for a CPU-time clock or an AUX clock without a user clock
     */
    public long convert(long counter, ClockId clock) {
        Projection p = Projection.of(clock);
        return p != null ? TimekeeperReader.convert(this, counter, p, null) : userClocks.require(clock).convert(counter);
    }

    /**
     * Converts a counter value read earlier (a snapshot, a hardware timestamp) with the parameters that
     * were in force at that value: the newest state whose cycle_last is at or before it. Counter values
     * older than the whole history use the oldest state (extrapolated backwards) and report
     * {@code withinHistory() == false}. Counter values more than half a wrap old cannot be told apart.
     *
     * @param counter a value of this timekeeper's clocksource, read earlier
     * @param clock   any clock {@link #nanos(ClockId)} accepts
     * @param into    the caller's result, overwritten; for a user clock only its nanos and withinHistory (set
     *                to true) are written, generation and clockWasSetSeq keep their previous values
     * @return {@code into.withinHistory()}
     * @throws IllegalArgumentException for a CPU-time clock or an AUX clock without a user clock
     */
    public boolean convert(long counter, ClockId clock, ConvertedNanos into) {
        Projection p = Projection.of(clock);
        if (p == null) {
            into.nanos = userClocks.require(clock).convert(counter);
            into.withinHistory = true;
            return true;
        }
        TimekeeperReader.convert(this, counter, p, into);
        return into.withinHistory;
    }

    // ------------------------------------------------------------------------------------------------
    // Writer

    /**
     * Accumulates the elapsed cycles and publishes a new state, pulling the frequency and any leap second
     * from the adjustment. Call at least every {@link #maxIdleNanos()}.
     */
    public void update() {
        writer.update();
        userClocks.updateAll();
    }

    /**
     * Steps REALTIME and TAI by {@code deltaNanos} (clock_adjtime ADJ_SETOFFSET); bumps clock-was-set.
     *
     * @param deltaNanos ns added to REALTIME and TAI: positive forwards, negative backwards
     */
    public void step(long deltaNanos) {
        writer.step(deltaNanos);
    }

    /**
     * Sets REALTIME to {@code epochNanos} now (clock_settime); TAI moves with it; bumps clock-was-set.
     *
     * @param epochNanos REALTIME's value at the writer's counter read inside the update, ns since the epoch
     */
    public void setRealtime(long epochNanos) {
        writer.setRealtime(epochNanos);
    }

    /**
     * Sets BOOTTIME - MONOTONIC (the time spent in suspend) to {@code nanos}: BOOTTIME moves by the
     * difference at once, backwards too, so this is for a timekeeper nobody reads yet or for a deliberate
     * correction.
     *
     * @param nanos the new BOOTTIME - MONOTONIC, ns; any sign (a time namespace's offsets can put BOOTTIME
     *              below MONOTONIC)
     */
    public void setBoottimeOffsetNanos(long nanos) {
        writer.setBoottimeOffsetNanos(nanos);
    }

    /**
     * {@return BOOTTIME - MONOTONIC in the newest state, ns: the builder's (or the last
     * {@link #setBoottimeOffsetNanos}) offset plus the time suspended since}
     */
    public long boottimeOffsetNanos() {
        return writer.newest().offsBoot;
    }

    /**
     * Sets TAI - UTC in seconds (adjtimex ADJ_TAI): TAI moves, REALTIME does not; clock-was-set is not bumped.
     *
     * @param seconds the new TAI - UTC, whole seconds (37 since 2017)
     */
    public void setTaiOffsetSeconds(int seconds) {
        writer.setTaiOffsetSeconds(seconds);
    }

    /**
     * Enters suspend: all lines stop at their current value (the published mult is 0) until
     * {@link #resume}. MONOTONIC and MONOTONIC_RAW do not count suspended time, as in the kernel. Does
     * nothing if already suspended.
     */
    public void suspend() {
        writer.suspend();
    }

    /**
     * Leaves suspend; the time suspended is measured on the counter (at the raw rate, valid for a counter
     * that kept running for less than half its wrap) and added to BOOTTIME and REALTIME/TAI.
     *
     * @throws IllegalStateException if not suspended
     */
    public void resume() {
        writer.resume();
    }

    /**
     * Leaves suspend with the time suspended given by another source (an RTC; a counter that stopped).
     *
     * @param sleptNanos the time suspended, ns, at least 0: added to BOOTTIME, REALTIME and TAI
     * @throws IllegalArgumentException if {@code sleptNanos} is negative
     * @throws IllegalStateException    if not suspended
     */
    public void resume(long sleptNanos) {
        if (sleptNanos < 0) {
            throw new IllegalArgumentException("slept time must be >= 0: " + sleptNanos);
        }
        writer.resume(sleptNanos);
    }

    // ------------------------------------------------------------------------------------------------
    // User clocks

    /**
     * Creates an independent clock on the same counter, readable as {@code nanos(auxId)}: its own
     * frequency, slew and offset (CLOCK_AUX, Linux 6.17+), starting at {@code initialNanos}.
     * It is updated with this timekeeper.
     *
     * @param auxId        the AUX clock id (CLOCK_AUX+0 to +7) the clock is read as
     * @param initialNanos the clock's value at creation, ns
     * @return the new clock, reachable through {@link #userClock} and {@link #nanos(ClockId)} from now on
     * @throws IllegalArgumentException if {@code auxId} is not an AUX clock id
     * @throws IllegalStateException    if this timekeeper has a user clock with that id already
     */
    public UserClock createUserClock(ClockId auxId, long initialNanos) {
        if (!auxId.isAux()) {
            throw new IllegalArgumentException(auxId.kernelName() + " is not an AUX clock id");
        }
        return userClocks.create(auxId, clocksource, initialNanos, ring.length);
    }

    /**
     * Removes the user clock with this id (reads of it fail afterwards).
     *
     * @param auxId an AUX clock id; nothing happens if it has no user clock
     * @throws IllegalArgumentException for an id that is not an AUX id
     */
    public void removeUserClock(ClockId auxId) {
        if (!auxId.isAux()) {
            throw new IllegalArgumentException(auxId + " is not an AUX clock id: user clocks are CLOCK_AUX+0..7");
        }
        userClocks.remove(auxId);
    }

    /**
     * The user clock with this id, or null.
     *
     * @param auxId any clock id
     * @return the user clock created for {@code auxId} and not removed; null if there is none or the id is
     *         not an AUX id
     */
    public UserClock userClock(ClockId auxId) {
        return userClocks.get(auxId);
    }

    // ------------------------------------------------------------------------------------------------
    // Introspection

    /** {@return the counter this timekeeper reads} */
    public Clocksource clocksource() {
        return clocksource;
    }

    /**
     * {@return the longest the timekeeper may go without {@link #update()}, ns: half the time to max_cycles at
     * the largest mult the adjustment may set (the kernel's margin), and at most half the time to half the
     * counter's wrap, beyond which the clocks stand still until the next update}
     */
    public long maxIdleNanos() {
        return writer.maxIdleNanos;
    }

    /** {@return the shift of both lines (a line's ns per cycle is mult / 2^shift), at least 1} */
    public int shift() {
        return shift;
    }

    /** {@return the raw line's (fixed) mult: ns per cycle times 2^shift at the counter's nominal frequency} */
    public long rawMult() {
        return rawMult;
    }

    /** {@return the adjusted line's mult as last published; 0 while suspended} */
    public long monoMult() {
        return writer.newest().mono.mult;
    }

    /**
     * {@return the frequency offset (ppb) the last update applied: the adjustment's frequency plus slew,
     * clamped to +-1,000,000 (1000 ppm)}
     */
    public long adjustedPpb() {
        return writer.adjustedPpb();
    }

    /**
     * {@return the max cycles of the last published state (unsigned): larger deltas take the 128-bit path;
     * -1 (none) while suspended}
     */
    public long maxCycles() {
        return writer.newest().maxCycles;
    }

    /** {@return the number of states the history holds: the builder's size rounded up to a power of two} */
    public int historySize() {
        return ring.length;
    }

    /**
     * {@return the number of states published so far: 0 at construction, then one more per update, step,
     * set, suspend or resume}
     */
    public long generation() {
        // Pairs with the writer's setRelease in TimekeeperWriter.endWrite() (and its constructor's).
        return (long) SEQ.getAcquire(this) >>> 1;
    }

    /**
     * Bumped whenever REALTIME/TAI are stepped or set, a leap second passes (at the first update after its
     * point), or the system resumes. Not bumped by {@link #setTaiOffsetSeconds}.
     *
     * @return the clock-was-set sequence of the newest state, 0 at construction
     */
    public int clockWasSetSeq() {
        return TimekeeperReader.clockWasSetSeq(this);
    }

    /** {@return whether the timekeeper is between {@link #suspend()} and {@link #resume}} */
    public boolean isSuspended() {
        return writer.isSuspended();
    }

    /** Package-private for tests: the cycle_last of the newest update (its MONOTONIC line's). */
    long cycleLast() {
        return writer.newest().mono.cycleLast;
    }
}
