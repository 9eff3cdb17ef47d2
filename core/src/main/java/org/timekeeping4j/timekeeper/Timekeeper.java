package org.timekeeping4j.timekeeper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static org.timekeeping4j.clocksource.SeqlockReader.HEADER_BYTES;
import static org.timekeeping4j.clocksource.SeqlockReader.RECORD_BYTES;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.ClockAdjustment;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.MultShift;
import org.timekeeping4j.clocksource.SeqlockReader;

/**
 * The read path of kernel/time/timekeeping.c in Java: a counter ({@link Clocksource}) turned into
 * REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their COARSE variants and user clocks.
 *
 * <h2>State</h2>
 * Two read bases ({@link TkReadBase}, the kernel's tk_read_base): the adjusted line (tkr_mono: MONOTONIC,
 * its mult steered by a {@link ClockAdjustment}) and the raw line (tkr_raw: MONOTONIC_RAW, fixed mult).
 * REALTIME = MONOTONIC + offsReal, BOOTTIME = MONOTONIC + offsBoot, TAI = MONOTONIC + offsTai. Both lines
 * share one shift, chosen by {@link MultShift#calculate} for {@link TimekeeperBuilder#conversionSeconds} (default 4 s)
 * rather than the clocksource's 600 s: a larger shift gives the adjusted line a finer frequency step
 * ({@code 1/mult}, below 0.5 ppb for counters from 24 MHz to 3 GHz) at the cost of a shorter max_cycles.
 *
 * <h2>Publication: a seqlock over a ring, not a seqcount latch</h2>
 * A single writer (every mutating method synchronises on one lock) builds the next state in the ring slot
 * after the newest (the shadow copy: no reader uses it), then publishes it by moving the sequence from
 * odd to the next even value. Readers copy the newest state's fields to locals, read the counter, and
 * validate that the sequence did not change; while it is odd they spin. The writer's odd window covers
 * only its own counter read, the accumulation and ~20 stores; the slow parts (pulling from the
 * adjustment, which locks) happen before it. So readers are lock-free, and wait-free except when they
 * overlap that window.
 *
 * <p>Why not the kernel's fast-timekeeper latch (two copies, readers never wait)? Because a latch reader
 * may finish on the old copy after the new one is published, with a counter value read after the
 * writer's: if the update lowered the slope, that old-slope value lies above what the next reader
 * computes with the new copy, and the clock goes backwards (the kernel documents exactly this for
 * ktime_get_mono_fast_ns). Monotonicity is worth the rare spin.
 *
 * <h2>Monotonicity across an update (every clock, any slope change)</h2>
 * Let the writer read the counter value {@code c0} inside its odd window and pivot both lines there:
 * it accumulates {@code c0 - cycle_last} with the old mult (128-bit, exact) and applies the new mult from
 * {@code c0} on ({@link TkReadBase#applyAdjustment}), so {@code new(c0) == old(c0)} exactly, and
 * the offsets are unchanged by a plain update.
 * <ol>
 *   <li>A reader that validated the old state read its counter before its re-read of the sequence, which
 *       did not see the odd value, which was stored (volatile, then a full fence) before the writer read
 *       {@code c0}. So its counter value {@code c1 <= c0}, and it returned {@code old(c1) <= old(c0)}.</li>
 *   <li>A reader that got the new state acquired the even sequence stored (release) after the writer's
 *       counter read, and reads its counter afterwards: {@code c2 >= c0}, so it returns
 *       {@code new(c2) >= new(c0)}.</li>
 * </ol>
 * Hence every value returned before an update is at most {@code old(c0) = new(c0)}, which is at most any
 * value returned after it, whatever the sign of the slope change. COARSE clocks return the line's value
 * at the last update's {@code c0}, a non-decreasing sequence. This needs a counter whose reads are
 * ordered with the surrounding loads ({@link Clocksource#isOrdered()}: lfence;rdtsc, isb;mrs, or a memory
 * counter read with a volatile load) and that does not run backwards (a counter value before cycle_last
 * is clamped to delta 0, so a jittery counter cannot go below the last update either). Deliberate
 * changes are not updates: a step or a leap second moves REALTIME and TAI by design, and never
 * MONOTONIC, BOOTTIME or MONOTONIC_RAW.
 *
 * <h2>The machine-code reader</h2>
 * Where the clocksource offers a {@link SeqlockReader} (the TSC read with rdtscp or lfence;rdtsc), the
 * writer also publishes each state into a native page inside the same odd window, and the high-resolution
 * clocks are read by one downcall into a stub that does the whole read (the kernel's vDSO over its vvar
 * page). It returns exactly what the Java reader returns at the same counter value. It reads the counter
 * before the sequence, which case 2 above tolerates: a reader that sees the new state with a counter value
 * before c0 has a negative delta, clamped to 0, and returns new(c0). The Java reader below still serves
 * the COARSE clocks, user clocks, {@link #convert} and every other clocksource.
 *
 * <h2>Conversion on the read path</h2>
 * {@code delta = (now - cycle_last) & mask}; a delta in the upper half of the mask is a counter value
 * before cycle_last (a jittery or unsynchronised counter) and becomes 0, the x86 vDSO's clamp; a delta
 * above max_cycles is multiplied on 128 bits ({@link MultShift#wide}) instead of overflowing.
 *
 * <h2>How often to update: max_idle</h2>
 * {@link #maxIdleNanos()} is half the time to max_cycles at the largest mult the adjustment may set
 * (the kernel's margin), and at most half the time to half the counter's wrap. Beyond max_cycles a read
 * takes the slower 128-bit path but stays exact; beyond half the wrap (89 s for a 32-bit 24 MHz counter)
 * a counter value is indistinguishable from one before cycle_last and the clocks stand still until the
 * next update. Call {@link #update()} from one thread at least every max_idle, e.g. every 100 ms.
 *
 * <h2>History</h2>
 * The ring holds the last {@link TimekeeperBuilder#historySize} published states (64 by default: 6.4 s at 100 ms
 * updates). {@link #convert(long, ClockId)} converts a counter value read earlier with the state that was
 * in force at that counter value, i.e. to exactly what a read returning that counter value returned
 * (a value equal to an update's c0 converts with the state that update published).
 */
public final class Timekeeper {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_DAY = 86_400L * NANOS_PER_SECOND;
    /** Largest adjustment of the adjusted line: 500 ppm frequency plus 500 ppm slew. */
    private static final long MAX_TOTAL_ADJUSTMENT_PPB = 1_000_000;

    // Projections: what a read returns. Constants so that the per-clock methods inline to straight code.
    // The counter clocks' projections are their VvarPage record indexes (CounterClock.record(), checked below:
    // the switches need constant expressions); the COARSE clocks and the TAI offset follow them.
    private static final int P_REALTIME = 0;
    private static final int P_MONOTONIC = 1;
    private static final int P_RAW = 2;
    private static final int P_BOOTTIME = 3;
    private static final int P_TAI = 4;
    private static final int P_REALTIME_COARSE = 5;
    private static final int P_MONOTONIC_COARSE = 6;
    private static final int P_TAI_OFFSET = 7;

    static {
        if (P_REALTIME != CounterClock.REALTIME.record() || P_MONOTONIC != CounterClock.MONOTONIC.record()
                || P_RAW != CounterClock.MONOTONIC_RAW.record() || P_BOOTTIME != CounterClock.BOOTTIME.record()
                || P_TAI != CounterClock.TAI.record() || P_REALTIME_COARSE != CounterClock.values().length) {
            throw new ExceptionInInitializerError("Timekeeper's projections no longer match CounterClock's records");
        }
    }

    private static final VarHandle SEQ;
    private static final VarHandle USER_CLOCKS = MethodHandles.arrayElementVarHandle(UserClock[].class);

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(Timekeeper.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Clocksource clocksource;
    private final ClockAdjustment adjustment;
    private final long mask;
    /** Deltas above this are counter values before cycle_last. */
    private final long halfMask;
    private final int shift;
    private final long rawMult;
    private final long maxIdleNanos;
    private final TimekeeperState[] ring;
    private final int ringMask;
    private final UserClock[] userClocks = new UserClock[8];
    /** Where the clocksource offers one: the vvar page and the stub that reads it; else null and 0. */
    private final VvarPage page;
    /** A page this timekeeper also publishes into (see {@link #mirrorTo}); guarded by writeLock. */
    private VvarPage mirror;
    private final SeqlockReader seqlockReader;
    private final long pageAddress;

    /**
     * The publication sequence: odd while the writer is inside its window, else 2 * generation; the
     * newest state is ring[generation & ringMask]. Accessed only through SEQ.
     */
    @SuppressWarnings("unused")
    private long seq;

    // Writer-only state, guarded by writeLock.
    private final Object writeLock = new Object();
    private long writerSeq;
    private long lastAdjustCycles;
    private long adjustedPpb;
    private boolean suspended;
    private long suspendCycles;
    private long validCycles = -1L;

    Timekeeper(TimekeeperBuilder b) {
        this.clocksource = b.clocksource;
        this.adjustment = b.adjustment;
        this.mask = clocksource.mask();
        this.halfMask = mask >>> 1;
        MultShift ms = MultShift.calculate(Math.round(clocksource.frequencyHz()), NANOS_PER_SECOND, b.conversionSeconds);
        if (ms.shift() < 1) {
            throw new IllegalArgumentException("counter too fast for a shift >= 1: " + clocksource);
        }
        this.shift = ms.shift();
        this.rawMult = ms.mult();
        long maxMult = rawMult + rawMult * MAX_TOTAL_ADJUSTMENT_PPB / NANOS_PER_SECOND + 1;
        long cyclesBound = maxCycles(maxMult);
        if (Long.compareUnsigned(cyclesBound, halfMask) > 0) {
            cyclesBound = halfMask;
        }
        long minMult = rawMult - rawMult * MAX_TOTAL_ADJUSTMENT_PPB / NANOS_PER_SECOND;
        this.maxIdleNanos = MultShift.wide(cyclesBound, minMult, shift, 0) >>> 1;
        int size = Integer.highestOneBit(b.historySize);
        if (size < b.historySize) {
            size <<= 1;
        }
        this.ring = new TimekeeperState[size];
        this.ringMask = size - 1;
        for (int i = 0; i < size; i++) {
            ring[i] = new TimekeeperState(mask, shift);
        }
        SeqlockReader r = b.machineCodeReader && mask == -1L && clocksource.seqlockReader() != null
                ? SeqlockReader.preferredReader() : null;
        this.page = r == null ? null : VvarPage.allocate();
        this.seqlockReader = r;
        this.pageAddress = r == null ? 0 : page.address;
        long now = b.anchored ? b.anchorCounter & mask : clocksource.read();
        TimekeeperState s = ring[0];
        s.mono.cycleLast = now;
        s.raw.cycleLast = now;
        s.mono.mult = rawMult;
        s.raw.mult = rawMult;
        s.mono.base = b.monotonicNanos;
        s.raw.base = b.monotonicNanos;
        s.offsReal = b.realtimeNanos - b.monotonicNanos;
        s.offsTai = s.offsReal + b.taiOffsetSeconds * NANOS_PER_SECOND;
        s.offsBoot = b.boottimeOffsetNanos;
        s.leapMono = Long.MAX_VALUE;
        s.maxCycles = maxCycles(rawMult);
        this.lastAdjustCycles = now;
        if (page != null) {
            page.attach(this);
            page.publish(s, shift);
        }
        SEQ.setRelease(this, 0L); // pairs with the readers' getAcquire; the constructor's stores come first
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

    /** The longest delta whose product with {@code mult}, plus a remainder below 2^shift, fits 64 bits. */
    private long maxCycles(long mult) {
        if (mult == 0) {
            return -1L;
        }
        return Long.divideUnsigned(-1L - ((1L << shift) - 1), mult);
    }

    // ------------------------------------------------------------------------------------------------
    // Readers

    /**
     * {@return CLOCK_REALTIME in ns since the Unix epoch (UTC: an inserted leap second repeats its second);
     * lock-free, allocation-free, never {@link #STALE}}
     */
    public long realtimeNanos() {
        return read(P_REALTIME);
    }

    /**
     * {@return CLOCK_MONOTONIC in ns from the builder's {@link TimekeeperBuilder#monotonicNanos} origin, at the
     * adjusted rate; not counting time suspended, never going back, never {@link #STALE}}
     */
    public long monotonicNanos() {
        return read(P_MONOTONIC);
    }

    /**
     * {@return CLOCK_MONOTONIC_RAW in ns from the same origin as MONOTONIC, at the counter's nominal rate
     * (no adjustment); not counting time suspended, never {@link #STALE}}
     */
    public long monotonicRawNanos() {
        return read(P_RAW);
    }

    /** {@return CLOCK_BOOTTIME in ns: MONOTONIC plus the time suspended (see {@link #boottimeOffsetNanos()})} */
    public long boottimeNanos() {
        return read(P_BOOTTIME);
    }

    /** {@return CLOCK_TAI in ns since the epoch: REALTIME plus the TAI offset, continuous across leap seconds} */
    public long taiNanos() {
        return read(P_TAI);
    }

    /** {@return CLOCK_REALTIME_COARSE in ns since the epoch: REALTIME at the last update, no counter read} */
    public long realtimeCoarseNanos() {
        return read(P_REALTIME_COARSE);
    }

    /** {@return CLOCK_MONOTONIC_COARSE in ns: MONOTONIC at the last update, no counter read} */
    public long monotonicCoarseNanos() {
        return read(P_MONOTONIC_COARSE);
    }

    /** {@return TAI - UTC in whole seconds now (changes by one exactly at a leap second; reads the counter)} */
    public int taiOffsetSeconds() {
        return (int) (read(P_TAI_OFFSET) / NANOS_PER_SECOND);
    }

    /**
     * The clock {@code clock} in ns.
     *
     * @param clock REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, a COARSE or ALARM variant (an ALARM id
     *              reads as its base clock), or an AUX id with a user clock ({@link #createUserClock})
     * @return the clock's value in ns, as the per-clock method returns it (never {@link #STALE})
     * @throws IllegalArgumentException for a CPU-time clock or an AUX clock without a user clock
     */
    public long nanos(ClockId clock) {
        return switch (clock) {
            case REALTIME, REALTIME_ALARM -> read(P_REALTIME);
            case MONOTONIC -> read(P_MONOTONIC);
            case MONOTONIC_RAW -> read(P_RAW);
            case BOOTTIME, BOOTTIME_ALARM -> read(P_BOOTTIME);
            case TAI -> read(P_TAI);
            case REALTIME_COARSE -> read(P_REALTIME_COARSE);
            case MONOTONIC_COARSE -> read(P_MONOTONIC_COARSE);
            default -> userClockFor(clock).nanos();
        };
    }

    private static int projection(ClockId clock) {
        return switch (clock) {
            case REALTIME, REALTIME_ALARM -> P_REALTIME;
            case MONOTONIC -> P_MONOTONIC;
            case MONOTONIC_RAW -> P_RAW;
            case BOOTTIME, BOOTTIME_ALARM -> P_BOOTTIME;
            case TAI -> P_TAI;
            case REALTIME_COARSE -> P_REALTIME_COARSE;
            case MONOTONIC_COARSE -> P_MONOTONIC_COARSE;
            // A CPU-time or AUX id has no projection: refused here, before any read computes a record address
            // from it (a machine-code read of record -1 would load from before the page).
            default -> throw new IllegalArgumentException(clock + " has no projection in a timekeeper: it reads "
                    + "REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their ALARM twins and the COARSE clocks");
        };
    }

    /**
     * The seqlock reader. Copies the fields to locals, reads the counter, validates, and only then
     * converts (the kernel's do_hres: the arithmetic stays outside the retry loop).
     */
    private long read(int p) {
        return read(p, false);
    }

    /** Value returned by {@link #readFresh} when the published state is older than its validity. */
    public static final long STALE = SeqlockReader.STALE;

    /**
     * As {@link #nanos(ClockId)} for REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI, but returns
     * {@link #STALE} instead of extrapolating when the counter has moved more than the validity set by
     * {@link #setValidityCycles} past the last update (the updater was starved, or the machine slept).
     *
     * @param clock REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME or TAI (or an ALARM variant); a COARSE id
     *              reads as {@link #nanos(ClockId)} and is never stale
     * @return the clock's value in ns, or {@link #STALE} (Long.MIN_VALUE) for a counter more than the
     *         validity past the newest state's cycle_last; never STALE while the validity is -1 (the default)
     *         or for a counter value before cycle_last (it reads as cycle_last)
     * @throws IllegalArgumentException for a CPU-time or AUX id
     */
    public long readFresh(ClockId clock) {
        return read(projection(clock), true);
    }

    /** {@return {@link #readFresh} of MONOTONIC without the dispatch on the clock id: ns, or {@link #STALE}} */
    public long monotonicFresh() {
        return read(P_MONOTONIC, true);
    }

    /** {@return {@link #readFresh} of REALTIME without the dispatch on the clock id: ns, or {@link #STALE}} */
    public long realtimeFresh() {
        return read(P_REALTIME, true);
    }

    /**
     * The largest value any {@link #readFresh} of {@code clock} can have returned so far: its value at the
     * current counter, or at cycle_last + validity if that comes first. A fallback that returns at least
     * this never goes below a fresh read it replaces, and never runs ahead of this clock's own present
     * (even when a newer state was published since the caller's read went stale).
     *
     * @param clock as for {@link #readFresh} (a COARSE id gives its value at the last update)
     * @return the clock's value in ns at the current counter, capped at cycle_last + validity; never
     *         {@link #STALE}
     * @throws IllegalArgumentException for a CPU-time or AUX id
     */
    public long freshCeiling(ClockId clock) {
        int p = projection(clock);
        for (;;) {
            long s = (long) SEQ.getAcquire(this); // pairs with setRelease in endWrite(), as in read()
            if ((s & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            TimekeeperState st = ring[(int) (s >>> 1) & ringMask];
            long cycleLast = st.mono.cycleLast;
            long valid = st.validCycles;
            long now = clocksource.read();
            VarHandle.acquireFence(); // field loads before the re-read; pairs with the fullFence in beginWrite()
            if ((long) SEQ.getVolatile(this) == s) {
                long delta = (now - cycleLast) & mask;
                if (Long.compareUnsigned(delta, halfMask) > 0) {
                    delta = 0;
                }
                if (Long.compareUnsigned(delta, valid) > 0) {
                    delta = valid;
                }
                return convert((cycleLast + delta) & mask, p, null);
            }
        }
    }

    /**
     * Whether a counter value read just now is within the newest state's validity, i.e. whether
     * {@link #readFresh} would have served it. No counter read: for callers that hold one already.
     *
     * @param counter a value of this timekeeper's clocksource
     * @return true if {@code counter} is at most the validity past the newest state's cycle_last, or before
     *         it (up to half the counter's wrap); always true while the validity is -1 (the default)
     */
    public boolean isFresh(long counter) {
        for (;;) {
            long s = (long) SEQ.getAcquire(this); // pairs with setRelease in endWrite(), as in read()
            if ((s & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            TimekeeperState st = ring[(int) (s >>> 1) & ringMask];
            long cycleLast = st.mono.cycleLast;
            long valid = st.validCycles;
            VarHandle.acquireFence(); // field loads before the re-read; pairs with the fullFence in beginWrite()
            if ((long) SEQ.getVolatile(this) == s) {
                long delta = (counter - cycleLast) & mask;
                return Long.compareUnsigned(delta, halfMask) > 0 || Long.compareUnsigned(delta, valid) <= 0;
            }
        }
    }

    /**
     * Deltas beyond {@code cycles} make {@link #readFresh} return {@link #STALE}; applied from the next state
     * published ({@link #update()}, a step, ...), in the Java reader and the vvar page alike.
     *
     * @param cycles counter cycles past cycle_last that a fresh read may still extrapolate, compared
     *               unsigned: -1 (the default) for never stale, 0 for stale as soon as the counter moves
     */
    public void setValidityCycles(long cycles) {
        synchronized (writeLock) {
            this.validCycles = cycles;
        }
    }

    /**
     * A read of projection {@code p}: through the vvar page where there is one (high-resolution clocks),
     * else the Java seqlock reader. Kept small so that it and the page read inline into the caller with
     * {@code p} and {@code fresh} constant (the Java reader alone is past the JIT's inlining size).
     */
    private long read(int p, boolean fresh) {
        if (pageAddress != 0 && p <= P_TAI) {
            // The whole read in machine code over the page: counter, seqlock and conversion in one downcall;
            // its memory ordering is argued where the code is (MachineCode.x86SeqlockRead). FRESH honours
            // the record's validity (STALE is SeqlockReader.STALE), ANY never. The process's preferred
            // build, a constant: nothing but pageAddress is loaded before the counter read.
            long record = pageAddress + HEADER_BYTES + p * RECORD_BYTES;
            return SeqlockReader.readPreferred(pageAddress, record, fresh ? SeqlockReader.FRESH : SeqlockReader.ANY);
        }
        return readJava(p, fresh);
    }

    /** The seqlock reader in Java, over the ring (every clocksource; the COARSE and TAI-offset projections). */
    private long readJava(int p, boolean fresh) {
        boolean coarse = p == P_REALTIME_COARSE || p == P_MONOTONIC_COARSE;
        long cycleLast, mult, xtime, base, maxCycles, offset, leapMono, leapStep, now, valid;
        for (;;) {
            // Pairs with the writer's SEQ.setRelease in endWrite(): seeing the even value makes the state it
            // published (all stores before that release) visible to the loads below.
            long s = (long) SEQ.getAcquire(this);
            if ((s & 1) != 0) {
                Thread.onSpinWait(); // the writer is inside its window: its counter read is the pivot we must not pass
                continue;
            }
            // The counter is read right after the sequence, before the state's fields. An ordered read
            // (rdtscp, isb;mrs) waits for every earlier load to complete: with only the sequence load before
            // it, the read does not wait for the ring -> state -> line chain of dependent loads (measured:
            // 7 to 9 ns on this VM). The fields are validated by the sequence re-read all the same, and the
            // counter still comes after the acquire of s, which is what the monotonicity argument needs.
            now = coarse ? 0 : clocksource.read();
            TimekeeperState st = ring[(int) (s >>> 1) & ringMask];
            TkReadBase line = p == P_RAW ? st.raw : st.mono;
            cycleLast = line.cycleLast;
            mult = line.mult;
            xtime = line.xtimeNsec;
            base = line.base;
            maxCycles = st.maxCycles;
            offset = switch (p) {
                case P_REALTIME, P_REALTIME_COARSE -> st.offsReal;
                case P_BOOTTIME -> st.offsBoot;
                case P_TAI -> st.offsTai;
                case P_TAI_OFFSET -> st.offsTai - st.offsReal;
                default -> 0;
            };
            leapMono = st.leapMono;
            leapStep = st.leapStepNs;
            valid = st.validCycles;
            if (coarse) {
                now = cycleLast;
            }
            // Orders the field loads and the counter read above before the sequence re-read below. Pairs with
            // the writer's fullFence after its odd store in beginWrite(): if the re-read still sees s, no
            // store of the next state was visible to us and our counter read preceded the writer's.
            VarHandle.acquireFence();
            if ((long) SEQ.getVolatile(this) == s) {
                break;
            }
        }
        long delta = (now - cycleLast) & mask;
        if (Long.compareUnsigned(delta, halfMask) > 0) {
            delta = 0; // counter before cycle_last: clamp, as the x86 vDSO does
        }
        if (fresh && Long.compareUnsigned(delta, valid) > 0) {
            return STALE;
        }
        long ns = Long.compareUnsigned(delta, maxCycles) <= 0
                ? (xtime + delta * mult) >>> shift
                : MultShift.wide(delta, mult, shift, xtime);
        long value = base + ns;
        return switch (p) {
            case P_REALTIME, P_REALTIME_COARSE -> value + offset + (value >= leapMono ? leapStep : 0);
            case P_TAI_OFFSET -> offset - (value >= leapMono ? leapStep : 0);
            default -> value + offset;
        };
    }

    // ------------------------------------------------------------------------------------------------
    // History

    /**
     * {@link #convert(long, ClockId, Conversion)} returning just the value. Allocates nothing.
     *
     * @param counter a value of this timekeeper's clocksource, read earlier
     * @param clock   any clock {@link #nanos(ClockId)} accepts
     * @return the clock's value in ns at that counter value, as a read returning that counter value returned
     * @throws IllegalArgumentException for a CPU-time clock or an AUX clock without a user clock
     */
    public long convert(long counter, ClockId clock) {
        int p = projection(clock);
        if (p < 0) {
            return userClockFor(clock).convert(counter);
        }
        return convert(counter, p, null);
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
    public boolean convert(long counter, ClockId clock, Conversion into) {
        int p = projection(clock);
        if (p < 0) {
            into.nanos = userClockFor(clock).convert(counter);
            into.withinHistory = true;
            return true;
        }
        convert(counter, p, into);
        return into.withinHistory;
    }

    private long convert(long counter, int p, Conversion into) {
        boolean coarse = p == P_REALTIME_COARSE || p == P_MONOTONIC_COARSE;
        long cycleLast, mult, xtime, base, maxCycles, offset, leapMono, leapStep, generation;
        int wasSet;
        boolean within;
        for (;;) {
            long s = (long) SEQ.getAcquire(this); // pairs with setRelease in endWrite(), as in read()
            if ((s & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            long g = s >>> 1;
            TimekeeperState st = ring[(int) g & ringMask];
            long newest = st.mono.cycleLast;
            long before = (newest - counter) & mask; // how far the counter value lies before the newest state
            within = true;
            if (before != 0 && Long.compareUnsigned(before, halfMask) <= 0) {
                long available = Math.min(g + 1, ring.length);
                TimekeeperState found = null;
                for (long k = 1; k < available; k++) {
                    TimekeeperState e = ring[(int) (g - k) & ringMask];
                    if (Long.compareUnsigned((newest - e.mono.cycleLast) & mask, before) >= 0) {
                        found = e;
                        break;
                    }
                }
                if (found == null) {
                    found = ring[(int) (g - available + 1) & ringMask];
                    within = false;
                }
                st = found;
            }
            TkReadBase line = p == P_RAW ? st.raw : st.mono;
            cycleLast = line.cycleLast;
            mult = line.mult;
            xtime = line.xtimeNsec;
            base = line.base;
            maxCycles = st.maxCycles;
            offset = switch (p) {
                case P_REALTIME, P_REALTIME_COARSE -> st.offsReal;
                case P_BOOTTIME -> st.offsBoot;
                case P_TAI -> st.offsTai;
                default -> 0;
            };
            leapMono = st.leapMono;
            leapStep = st.leapStepNs;
            generation = st.generation;
            wasSet = st.clockWasSetSeq;
            VarHandle.acquireFence(); // field loads before the re-read; pairs with the fullFence in beginWrite()
            if ((long) SEQ.getVolatile(this) == s) {
                break;
            }
        }
        long value;
        if (coarse) {
            value = base;
        } else if (within) {
            long delta = (counter - cycleLast) & mask;
            value = base + (Long.compareUnsigned(delta, maxCycles) <= 0
                    ? (xtime + delta * mult) >>> shift
                    : MultShift.wide(delta, mult, shift, xtime));
        } else {
            // Backwards from the oldest state: base + floor((xtime - d * mult) / 2^shift)
            // = base - ceil((d * mult - xtime) / 2^shift) = base - floor((d * mult + (2^shift - 1 - xtime)) / 2^shift).
            long d = (cycleLast - counter) & mask;
            value = base - MultShift.wide(d, mult, shift, ((1L << shift) - 1) - xtime);
        }
        long result = switch (p) {
            case P_REALTIME, P_REALTIME_COARSE -> value + offset + (value >= leapMono ? leapStep : 0);
            default -> value + offset;
        };
        if (into != null) {
            into.nanos = result;
            into.withinHistory = within;
            into.generation = generation;
            into.clockWasSetSeq = wasSet;
        }
        return result;
    }

    // ------------------------------------------------------------------------------------------------
    // Writer

    /**
     * Accumulates the elapsed cycles and publishes a new state, pulling the frequency and any leap second
     * from the adjustment. Call at least every {@link #maxIdleNanos()}.
     */
    public void update() {
        write(OP_UPDATE, 0);
        for (int i = 0; i < userClocks.length; i++) {
            UserClock u = (UserClock) USER_CLOCKS.getAcquire(userClocks, i);
            if (u != null) {
                u.update();
            }
        }
    }

    /**
     * Steps REALTIME and TAI by {@code deltaNanos} (clock_adjtime ADJ_SETOFFSET); bumps clock-was-set.
     *
     * @param deltaNanos ns added to REALTIME and TAI: positive forwards, negative backwards
     */
    public void step(long deltaNanos) {
        write(OP_STEP, deltaNanos);
    }

    /**
     * Sets REALTIME to {@code epochNanos} now (clock_settime); TAI moves with it; bumps clock-was-set.
     *
     * @param epochNanos REALTIME's value at the writer's counter read inside the update, ns since the epoch
     */
    public void setRealtime(long epochNanos) {
        write(OP_SET_REALTIME, epochNanos);
    }

    /**
     * Sets BOOTTIME - MONOTONIC (the time spent in suspend) to {@code nanos}: BOOTTIME moves by the
     * difference at once, backwards too, so this is for a timekeeper nobody reads yet (the tracker refining
     * its offset before publication) or for a deliberate correction.
     *
     * @param nanos the new BOOTTIME - MONOTONIC, ns, at least 0
     * @throws IllegalArgumentException if {@code nanos} is negative
     */
    public void setBoottimeOffsetNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("boot offset must be >= 0: " + nanos);
        }
        write(OP_SET_BOOT, nanos);
    }

    /**
     * {@return BOOTTIME - MONOTONIC in the newest state, ns: the builder's (or the last
     * {@link #setBoottimeOffsetNanos}) offset plus the time suspended since}
     */
    public long boottimeOffsetNanos() {
        return newest().offsBoot;
    }

    /**
     * Sets TAI - UTC in seconds (adjtimex ADJ_TAI): TAI moves, REALTIME does not; clock-was-set is not bumped.
     *
     * @param seconds the new TAI - UTC, whole seconds (37 since 2017)
     */
    public void setTaiOffsetSeconds(int seconds) {
        write(OP_SET_TAI, seconds);
    }

    /**
     * Enters suspend: all lines stop at their current value (the published mult is 0) until
     * {@link #resume}. MONOTONIC and MONOTONIC_RAW do not count suspended time, as in the kernel. Does
     * nothing if already suspended.
     */
    public void suspend() {
        write(OP_SUSPEND, 0);
    }

    /**
     * Leaves suspend; the time suspended is measured on the counter (at the raw rate, valid for a counter
     * that kept running for less than half its wrap) and added to BOOTTIME and REALTIME/TAI.
     *
     * @throws IllegalStateException if not suspended
     */
    public void resume() {
        write(OP_RESUME, -1);
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
        write(OP_RESUME, sleptNanos);
    }

    private static final int OP_UPDATE = 0;
    private static final int OP_STEP = 1;
    private static final int OP_SET_REALTIME = 2;
    private static final int OP_SET_TAI = 3;
    private static final int OP_SUSPEND = 4;
    private static final int OP_RESUME = 5;
    private static final int OP_SET_BOOT = 6;

    private void write(int op, long arg) {
        synchronized (writeLock) {
            if (op == OP_SUSPEND && suspended) {
                return;
            }
            if (op == OP_RESUME && !suspended) {
                throw new IllegalStateException("not suspended");
            }
            // Outside the odd window: pull from the adjustment (it locks; readers must not spin on that).
            // The slew it debits is measured to this counter value rather than to the pivot below; the
            // difference is the window's width times the slew rate, far below a ns.
            long pre = clocksource.read();
            long elapsed = suspended ? 0 : MultShift.wide((pre - lastAdjustCycles) & mask, rawMult, shift, 0);
            if (Long.compareUnsigned((pre - lastAdjustCycles) & mask, halfMask) > 0) {
                elapsed = 0;
            } else {
                lastAdjustCycles = pre;
            }
            long ppb = adjustment.frequencyPpb(elapsed);
            ppb = Math.max(-MAX_TOTAL_ADJUSTMENT_PPB, Math.min(MAX_TOTAL_ADJUSTMENT_PPB, ppb));
            adjustedPpb = ppb;
            int pendingLeap = adjustment.pendingLeap();
            // mult for the adjusted line: rawMult * (1 + ppb / 1e9), rounded to nearest.
            long monoMult = rawMult + Math.floorDiv(rawMult * ppb + NANOS_PER_SECOND / 2, NANOS_PER_SECOND);

            int appliedLeap = ClockAdjustment.LEAP_NONE;
            boolean folded = false;
            long g = writerSeq >>> 1;
            TimekeeperState cur = newest();
            TimekeeperState next = ring[(int) (g + 1) & ringMask];

            beginWrite();
            long now = clocksource.read();
            next.copyFrom(cur);
            next.validCycles = validCycles;
            long offset = (now - cur.mono.cycleLast) & mask;
            if (Long.compareUnsigned(offset, halfMask) > 0) {
                offset = 0; // the counter reads before cycle_last (jitter): no time has passed, keep cycle_last
                now = cur.mono.cycleLast;
            }
            if (!suspended) {
                next.mono.applyAdjustment(offset, monoMult);
            }
            next.mono.accumulate(offset);
            next.raw.accumulate(offset);
            next.mono.cycleLast = now;
            next.raw.cycleLast = now;
            long mono = next.mono.base; // the value of MONOTONIC at now (xtimeNsec < 1 ns)

            // A leap second whose point has passed is folded into offsReal (readers have been applying it
            // since the point through leapMono, so the value does not change here).
            if (next.leapMono != Long.MAX_VALUE && mono >= next.leapMono) {
                appliedLeap = next.leapStepNs < 0 ? ClockAdjustment.LEAP_INSERT : ClockAdjustment.LEAP_DELETE;
                folded = true;
                next.offsReal += next.leapStepNs;
                next.leapMono = Long.MAX_VALUE;
                next.leapStepNs = 0;
                next.clockWasSetSeq++;
            }
            switch (op) {
                case OP_STEP -> {
                    next.offsReal += arg;
                    next.offsTai += arg;
                    next.clockWasSetSeq++;
                }
                case OP_SET_REALTIME -> {
                    long realNow = mono + next.offsReal + (mono >= next.leapMono ? next.leapStepNs : 0);
                    next.offsReal += arg - realNow;
                    next.offsTai += arg - realNow;
                    next.clockWasSetSeq++;
                }
                case OP_SET_TAI -> next.offsTai = next.offsReal + arg * NANOS_PER_SECOND;
                case OP_SET_BOOT -> next.offsBoot = arg;
                case OP_SUSPEND -> {
                    next.mono.mult = 0;
                    next.raw.mult = 0;
                    suspended = true;
                    suspendCycles = now;
                }
                case OP_RESUME -> {
                    long slept = arg >= 0 ? arg : MultShift.wide((now - suspendCycles) & mask, rawMult, shift, 0);
                    next.mono.mult = monoMult;
                    next.raw.mult = rawMult;
                    next.offsBoot += slept;
                    next.offsReal += slept;
                    next.offsTai += slept;
                    next.clockWasSetSeq++;
                    suspended = false;
                    lastAdjustCycles = now;
                }
                default -> {
                }
            }
            // Arm (or disarm) the leap second at the next UTC midnight of REALTIME.
            if (!folded) {
                if (pendingLeap == ClockAdjustment.LEAP_NONE) {
                    next.leapMono = Long.MAX_VALUE;
                    next.leapStepNs = 0;
                } else {
                    long real = mono + next.offsReal;
                    long midnight = Math.floorDiv(real, NANOS_PER_DAY) * NANOS_PER_DAY + NANOS_PER_DAY;
                    // Insert: at midnight REALTIME goes back to 23:59:59 (that second is repeated).
                    // Delete: at 23:59:59 REALTIME goes on to 00:00:00 (that second is skipped).
                    long point = pendingLeap == ClockAdjustment.LEAP_INSERT ? midnight : midnight - NANOS_PER_SECOND;
                    if (real >= point) {
                        point += NANOS_PER_DAY;
                    }
                    next.leapMono = point - next.offsReal;
                    next.leapStepNs = pendingLeap == ClockAdjustment.LEAP_INSERT ? -NANOS_PER_SECOND : NANOS_PER_SECOND;
                }
            }
            next.maxCycles = maxCycles(Math.max(next.mono.mult, next.raw.mult));
            next.generation = g + 1;
            endWrite(next);
            if (folded) {
                adjustment.leapApplied(appliedLeap);
            }
        }
    }

    /** Opens the writer's window: readers that overlap it retry. */
    private void beginWrite() {
        writerSeq++;
        SEQ.setVolatile(this, writerSeq);
        if (page != null) {
            page.beginWrite();
        }
        if (mirror != null) {
            mirror.beginWrite();
        }
        // Orders the odd store before everything after it, loads included: the counter read that picks the
        // pivot c0 and the stores into the next slot. Pairs with the readers' acquireFence before their
        // re-read: a reader whose re-read misses the odd value read its counter before our c0.
        VarHandle.fullFence();
    }

    /** Publishes the next slot. */
    private void endWrite(TimekeeperState next) {
        writerSeq++;
        // Each page's own release store of its seq; readers of the page pair with it.
        if (page != null) {
            page.publish(next, shift);
        }
        if (mirror != null) {
            mirror.publish(next, shift);
        }
        // Release: the next slot's stores and our counter read happen before the even value is visible.
        // Pairs with the readers' getAcquire at the top of their loop.
        SEQ.setRelease(this, writerSeq);
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
        synchronized (writeLock) {
            int i = auxId.id() - ClockId.AUX_BASE;
            if (userClocks[i] != null) {
                throw new IllegalStateException(auxId.kernelName() + " exists already");
            }
            UserClock u = new UserClock(auxId, clocksource, initialNanos, ring.length);
            USER_CLOCKS.setRelease(userClocks, i, u); // pairs with getAcquire in userClock()/update()
            return u;
        }
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
        synchronized (writeLock) {
            USER_CLOCKS.setRelease(userClocks, auxId.id() - ClockId.AUX_BASE, (UserClock) null);
        }
    }

    /**
     * The user clock with this id, or null.
     *
     * @param auxId any clock id
     * @return the user clock created for {@code auxId} and not removed; null if there is none or the id is
     *         not an AUX id
     */
    public UserClock userClock(ClockId auxId) {
        if (!auxId.isAux()) {
            return null;
        }
        return (UserClock) USER_CLOCKS.getAcquire(userClocks, auxId.id() - ClockId.AUX_BASE);
    }

    private UserClock userClockFor(ClockId clock) {
        UserClock u = userClock(clock);
        if (u == null) {
            throw new IllegalArgumentException(clock.kernelName() + " is not a clock of this timekeeper"
                    + (clock.isAux() ? " (create it with createUserClock)" : ""));
        }
        return u;
    }

    // ------------------------------------------------------------------------------------------------
    // Introspection

    /** {@return the counter this timekeeper reads} */
    public Clocksource clocksource() {
        return clocksource;
    }

    /**
     * {@return whether this timekeeper has a vvar page, i.e. reads in machine code and can {@link #mirrorTo}
     * one: true where the clocksource offers a {@link SeqlockReader}, its counter is 64 bits wide and the
     * builder left {@link TimekeeperBuilder#machineCodeReader} on}
     */
    public boolean hasVvarPage() {
        return page != null;
    }

    /**
     * Publishes every state from now on into {@code target} as well, starting with the newest one, until
     * {@link #stopMirroring()}: readers of that page then read this timekeeper, exactly as its own reads.
     *
     * @throws IllegalStateException if another timekeeper mirrors into {@code target}, or if this one has
     *         no machine-code reader (the page's records assume a 64-bit counter read by one)
     *
     * @param target a page from {@link VvarPage#allocate()}; the page this timekeeper mirrors into already
     *               is accepted and changes nothing
     */
    public void mirrorTo(VvarPage target) {
        if (page == null) {
            throw new IllegalStateException("no vvar page for " + clocksource + ": its reads are in Java");
        }
        synchronized (writeLock) {
            if (mirror == target) {
                return;
            }
            if (mirror != null) {
                throw new IllegalStateException("already mirroring into another page; stop mirroring first");
            }
            target.attach(this);
            target.beginWrite();
            VarHandle.fullFence(); // the odd seq before the record stores, as in beginWrite()
            target.publish(newest(), shift);
            mirror = target;
        }
    }

    /** Stops publishing into the page given to {@link #mirrorTo}; it keeps the last state published. */
    public void stopMirroring() {
        synchronized (writeLock) {
            if (mirror != null) {
                mirror.detach(this);
                mirror = null;
            }
        }
    }

    /**
     * {@return how the high-resolution clocks are read: "machine code around rdtscp" or "machine code around
     * lfence;rdtsc" (one downcall per read, see {@link SeqlockReader}), or "Java" (the seqlock in Java around
     * the clocksource's read)}
     */
    public String readPath() {
        return seqlockReader != null ? "machine code around " + seqlockReader.instructions() : "Java";
    }

    /** {@return the longest the timekeeper may go without {@link #update()}, ns (see the class comment)} */
    public long maxIdleNanos() {
        return maxIdleNanos;
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
        return newest().mono.mult;
    }

    /**
     * {@return the frequency offset (ppb) the last update applied: the adjustment's frequency plus slew,
     * clamped to +-1,000,000 (1000 ppm)}
     */
    public long adjustedPpb() {
        synchronized (writeLock) {
            return adjustedPpb;
        }
    }

    /**
     * {@return the max cycles of the last published state (unsigned): larger deltas take the 128-bit path;
     * -1 (none) while suspended}
     */
    public long maxCycles() {
        return newest().maxCycles;
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
        return (long) SEQ.getAcquire(this) >>> 1;
    }

    /**
     * Bumped whenever REALTIME/TAI are stepped or set, a leap second passes (at the first update after its
     * point), or the system resumes. Not bumped by {@link #setTaiOffsetSeconds}.
     *
     * @return the clock-was-set sequence of the newest state, 0 at construction
     */
    public int clockWasSetSeq() {
        for (;;) {
            long s = (long) SEQ.getAcquire(this); // pairs with setRelease in endWrite()
            if ((s & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            int v = ring[(int) (s >>> 1) & ringMask].clockWasSetSeq;
            VarHandle.acquireFence(); // the load before the re-read; pairs with the fullFence in beginWrite()
            if ((long) SEQ.getVolatile(this) == s) {
                return v;
            }
        }
    }

    /** {@return whether the timekeeper is between {@link #suspend()} and {@link #resume}} */
    public boolean isSuspended() {
        synchronized (writeLock) {
            return suspended;
        }
    }

    /** The newest state, for the writer-side introspection above (the writer lock keeps it stable). */
    private TimekeeperState newest() {
        synchronized (writeLock) {
            return ring[(int) (writerSeq >>> 1) & ringMask];
        }
    }

    /** Package-private for tests: the cycle_last of the newest update (its MONOTONIC line's). */
    long cycleLast() {
        return newest().mono.cycleLast;
    }
}
