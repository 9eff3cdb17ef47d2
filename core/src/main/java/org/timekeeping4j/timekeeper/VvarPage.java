package org.timekeeping4j.timekeeper;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.timekeeping4j.clocksource.SeqlockReader.ANY_LIMIT;
import static org.timekeeping4j.clocksource.SeqlockReader.BASE;
import static org.timekeeping4j.clocksource.SeqlockReader.CYCLE_LAST;
import static org.timekeeping4j.clocksource.SeqlockReader.FRESH_LIMIT;
import static org.timekeeping4j.clocksource.SeqlockReader.HEADER_BYTES;
import static org.timekeeping4j.clocksource.SeqlockReader.K0;
import static org.timekeeping4j.clocksource.SeqlockReader.K1;
import static org.timekeeping4j.clocksource.SeqlockReader.LEAP_STEP;
import static org.timekeeping4j.clocksource.SeqlockReader.LEAP_THRESHOLD;
import static org.timekeeping4j.clocksource.SeqlockReader.MULT;
import static org.timekeeping4j.clocksource.SeqlockReader.MULT_WIDE;
import static org.timekeeping4j.clocksource.SeqlockReader.OFFSET;
import static org.timekeeping4j.clocksource.SeqlockReader.RECORD_BYTES;
import static org.timekeeping4j.clocksource.SeqlockReader.SEQ;
import static org.timekeeping4j.clocksource.SeqlockReader.SHIFT;
import static org.timekeeping4j.clocksource.SeqlockReader.VALID_CYCLES;
import static org.timekeeping4j.clocksource.SeqlockReader.XTIME;

import java.lang.foreign.Arena;
import java.math.BigInteger;
import java.util.Arrays;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.SeqlockReader;

/**
 * A vvar page: a published timekeeper state in the native layout a {@link SeqlockReader} reads, one record
 * per high-resolution clock (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI). Every hardware timekeeper
 * writes its own page inside the same odd window as its ring slot, so a read through the page returns
 * exactly what the Java reader of the ring returns at the same counter value (and what
 * {@link Timekeeper#convert} returns for it). A timekeeper can also mirror its states into a page it does
 * not own ({@link Timekeeper#mirrorTo}): a process-wide page at a fixed address, as the kernel's vvar page
 * is, lets the process's fast clocks pass constant addresses to the stub, with no load before the counter
 * read, and survive the timekeepers behind it being replaced.
 *
 * <p>Until a timekeeper publishes into it, every record is stale (zero validity): a fresh read returns
 * {@link SeqlockReader#STALE}. The page's sequence is its own and only grows, whichever timekeeper writes,
 * so a reader can never validate a state against the sequence of another one.
 *
 * <p>Pages live in the global arena: a reader may still be inside the stub with a page's address when the
 * last reference to its timekeeper goes away, and a freed page would be a use after free. A process
 * creates a handful (the fast path's two, and one per hardware timekeeper: the tracker's pair, one more per
 * re-anchor), 704 bytes each.
 */
public final class VvarPage {

    /** One record per counter-served clock, at its {@link CounterClock#record()} index. */
    private static final CounterClock[] CLOCKS = CounterClock.values();
    private static final long BYTES = HEADER_BYTES + CLOCKS.length * RECORD_BYTES;
    /** Where k0 and k1 start in a record. */
    private static final long[] K_WORDS = {K0, K1};
    /** Accessed with setVolatile/setRelease for seq; plain MemorySegment stores for the records. */
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment page;
    /** The page's address, passed to the stub (a long: no segment checks on the read path). */
    final long address;
    /** The writer's copy of the sequence; guarded by the owning TimekeeperWriter's monitor, handed over under this. */
    private long seq;
    private Object owner;

    private VvarPage() {
        this.page = Arena.global().allocate(BYTES, 64);
        this.address = page.address();
        for (int p = 0; p < CLOCKS.length; p++) {
            long r = HEADER_BYTES + p * RECORD_BYTES;
            page.set(JAVA_LONG, r + VALID_CYCLES, 0); // stale until published into; limits 0: the slow path says so
            page.set(JAVA_LONG, r + LEAP_THRESHOLD, Long.MAX_VALUE);
        }
    }

    /**
     * {@return a new page in the global arena (never freed), owned by no timekeeper: every record stale, so a
     * fresh read of it returns {@link SeqlockReader#STALE} and a read that may extrapolate returns 0}
     */
    public static VvarPage allocate() {
        return new VvarPage();
    }

    /**
     * {@return the page's native address (64-byte aligned, fixed for the process's life): the stub's
     * first argument}
     */
    public long address() {
        return address;
    }

    /**
     * The address of {@code clock}'s record: the stub's second argument.
     *
     * @param clock REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME or TAI (the clocks with a record)
     * @return the record's native address, {@link #address()} plus a constant offset per clock
     * @throws IllegalArgumentException for a clock without a record: the COARSE, ALARM, CPU-time and AUX ids
     */
    public long recordAddress(ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        if (c != null) {
            return address + HEADER_BYTES + c.record() * RECORD_BYTES;
        }
        throw new IllegalArgumentException(clock + " has no record in a vvar page (only " + Arrays.toString(CLOCKS) + ")");
    }

    synchronized void attach(Object writer) {
        if (owner != null && owner != writer) {
            throw new IllegalStateException("this vvar page is written by another timekeeper; stop its mirroring first");
        }
        owner = writer;
    }

    synchronized void detach(Object writer) {
        if (owner == writer) {
            owner = null;
        }
    }

    /**
     * Opens the window: the odd seq is stored before any record store. The caller's full fence right after
     * (TimekeeperWriter.beginWrite()) also orders it before the writer's counter read, as for the ring's seq.
     */
    void beginWrite() {
        seq |= 1;
        LONG.setVolatile(page, SEQ, seq);
    }

    /** Fills the records from {@code st} (plain stores), then publishes them with a release store of seq. */
    void publish(TimekeeperState st, int shift) {
        page.set(JAVA_LONG, SHIFT, shift);
        for (CounterClock c : CLOCKS) {
            // The clock's projection, as the Java reader applies it: line, offset, and the leap step (with its
            // sign) from the threshold on for the clocks a leap second moves.
            Projection p = Projection.of(c);
            boolean leap = p.leap() != 0;
            record(c.record(), st, p.line(st), p.offset(st), leap ? st.leapMono : Long.MAX_VALUE,
                    p.leap() * st.leapStepNs, shift);
        }
        // Release: the record stores above are visible before the even seq. Pairs with the stub's first seq
        // load, which x86 keeps ahead of its record loads (TSO; see MachineCode.x86SeqlockRead).
        seq = (seq | 1) + 1; // the next even value, after beginWrite's odd one (or directly, for a first state)
        LONG.setRelease(page, SEQ, seq);
    }

    private void record(int p, TimekeeperState st, TkReadBase line, long offset, long leapThreshold, long leapStep,
            int shift) {
        long r = HEADER_BYTES + p * RECORD_BYTES;
        long any = anyLimit(line, leapThreshold, shift);
        long multWide = any == 0 ? 0 : line.mult << (64 - shift);
        // k = (base + offset) * 2^64 + xtime * 2^(64 - shift) - cycle_last * mult', modulo 2^128.
        long xLow = line.xtimeNsec << (64 - shift); // xtime < 2^shift: fits the low word
        long pLow = line.cycleLast * multWide;
        long pHigh = Math.unsignedMultiplyHigh(line.cycleLast, multWide);
        long kLow = xLow - pLow;
        long kHigh = line.base + offset - pHigh - (Long.compareUnsigned(xLow, pLow) < 0 ? 1 : 0);
        // k_j = k + (E + j) * 2^32 * mult' for the counter's high halves E + j the window can see (anyLimit).
        long epoch = line.cycleLast >>> 32;
        for (int j = 0; j < 2; j++) {
            long e = epoch + j; // < 2^33, so e * mult' < 2^97; shifted left by 32 it is taken modulo 2^128
            long eLow = e * multWide;
            long eHigh = Math.unsignedMultiplyHigh(e, multWide);
            long addLow = eLow << 32;
            long addHigh = (eHigh << 32) | (eLow >>> 32);
            long sumLow = kLow + addLow;
            long sumHigh = kHigh + addHigh + (Long.compareUnsigned(sumLow, kLow) < 0 ? 1 : 0);
            page.set(JAVA_LONG, r + K_WORDS[j], sumLow);
            page.set(JAVA_LONG, r + K_WORDS[j] + 8, sumHigh);
        }
        page.set(JAVA_LONG, r + CYCLE_LAST, line.cycleLast);
        page.set(JAVA_LONG, r + MULT_WIDE, multWide);
        page.set(JAVA_LONG, r + FRESH_LIMIT, freshLimit(any, st.validCycles));
        page.set(JAVA_LONG, r + ANY_LIMIT, any);
        page.set(JAVA_LONG, r + VALID_CYCLES, st.validCycles);
        page.set(JAVA_LONG, r + BASE, line.base);
        page.set(JAVA_LONG, r + OFFSET, offset);
        page.set(JAVA_LONG, r + LEAP_THRESHOLD, leapThreshold);
        page.set(JAVA_LONG, r + LEAP_STEP, leapStep);
        page.set(JAVA_LONG, r + MULT, line.mult);
        page.set(JAVA_LONG, r + XTIME, line.xtimeNsec);
    }

    /**
     * The exclusive bound on deltas (unsigned) below which the fast path's high word of
     * {@code now * mult' + k} is the exact value with no leap step. Derivation: with {@code now = cycle_last
     * + delta} as integers, {@code now * mult' + k = (base + offset) * 2^64 + (xtime + delta * mult) *
     * 2^(64 - shift)}, whose high word is {@code base + offset + floor((xtime + delta * mult) / 2^shift)}, the
     * value, as long as the sum stays below 2^128 (it does for any delta below 2^63, as mult' &lt; 2^64).
     * Hence the bound is the least of: 2^63 (deltas in the upper half are counter values before cycle_last,
     * which the slow path clamps); 2^64 - cycle_last (beyond it the counter wrapped and {@code now} is not
     * cycle_last + delta as integers); the first delta at which the line reaches the leap threshold; and
     * {@code (E + 2) * 2^32 - cycle_last}, E = cycle_last's high 32 bits, so that the counter's high half is
     * E or E + 1, the two the record has a constant k_j for (the fast path multiplies the low half:
     * {@code now * mult' + k = lo * mult' + k_hi}, see MachineCode.x86SeqlockRead). That last bound leaves
     * one to two 2^32-cycle epochs (1.75 to 3.5 s at 2.45 GHz): a read later than that after an update
     * takes the exact slow path. It is 0 (always the slow path) when mult' does not fit 64 bits:
     * mult &gt;= 2^shift, a counter slower than 1 GHz.
     */
    static long anyLimit(TkReadBase line, long leapThreshold, int shift) {
        if ((line.mult >>> shift) != 0) {
            return 0;
        }
        long limit = Long.MIN_VALUE; // 2^63, unsigned
        long toWrap = -line.cycleLast;
        if (line.cycleLast != 0 && Long.compareUnsigned(toWrap, limit) < 0) {
            limit = toWrap;
        }
        long epoch = line.cycleLast >>> 32;
        if (epoch <= 0xFFFF_FFFDL) { // else (E + 2) * 2^32 is past 2^64, and the bound to the wrap is lower
            long toEpochs = ((epoch + 2) << 32) - line.cycleLast;
            if (Long.compareUnsigned(toEpochs, limit) < 0) {
                limit = toEpochs;
            }
        }
        long leap = leapDelta(line, leapThreshold, shift);
        if (Long.compareUnsigned(leap, limit) < 0) {
            limit = leap;
        }
        return limit;
    }

    /** {@code any} further bounded by valid cycles + 1 (valid = -1: never stale). */
    static long freshLimit(long any, long validCycles) {
        return validCycles != -1L && Long.compareUnsigned(validCycles + 1, any) < 0 ? validCycles + 1 : any;
    }

    /**
     * The smallest delta at which {@code base + floor((xtime + delta * mult) / 2^shift) >= threshold}, or -1
     * (unsigned max) for none. With {@code D = threshold - base > 0} that is {@code xtime + delta * mult >=
     * D * 2^shift}, so {@code delta = ceil((D * 2^shift - xtime) / mult)}; on BigInteger because
     * {@code D * 2^shift} exceeds 64 bits for a leap second armed more than a few minutes ahead. Runs on
     * the writer only, and only while a leap second is armed.
     */
    static long leapDelta(TkReadBase line, long threshold, int shift) {
        if (threshold == Long.MAX_VALUE) {
            return -1L;
        }
        if (line.base >= threshold) {
            return 0;
        }
        if (line.mult == 0) {
            return -1L; // suspended: the line stands still
        }
        BigInteger need = BigInteger.valueOf(threshold).subtract(BigInteger.valueOf(line.base)).shiftLeft(shift)
                .subtract(BigInteger.valueOf(line.xtimeNsec));
        BigInteger[] qr = need.divideAndRemainder(BigInteger.valueOf(line.mult));
        BigInteger delta = qr[1].signum() != 0 ? qr[0].add(BigInteger.ONE) : qr[0];
        return delta.bitLength() > 63 ? -1L : delta.longValue();
    }
}
