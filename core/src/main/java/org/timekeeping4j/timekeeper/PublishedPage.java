package org.timekeeping4j.timekeeper;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.timekeeping4j.clocksource.SeqlockReader.ANY_LIMIT;
import static org.timekeeping4j.clocksource.SeqlockReader.BASE;
import static org.timekeeping4j.clocksource.SeqlockReader.CYCLE_LAST;
import static org.timekeeping4j.clocksource.SeqlockReader.FRESH_LIMIT;
import static org.timekeeping4j.clocksource.SeqlockReader.HEADER_BYTES;
import static org.timekeeping4j.clocksource.SeqlockReader.K_HIGH;
import static org.timekeeping4j.clocksource.SeqlockReader.K_LOW;
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
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.timekeeping4j.clocksource.SeqlockReader;

/**
 * The timekeeper's vvar page: the newest published state in the native layout a {@link SeqlockReader}
 * reads, one record per high-resolution clock (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, in the
 * order of the timekeeper's projections). Written only by the timekeeper's writer, inside the same odd
 * window as its ring slot, so a read through the page returns exactly what the Java reader of the ring
 * would have returned at the same counter value (and what {@link Timekeeper#convert} returns for it).
 *
 * <p>The page lives in the global arena: a reader may still be inside the stub with the page's address
 * when the last reference to its timekeeper goes away, and a freed page would be a use after free. A
 * process creates a handful of hardware timekeepers (the tracker's pair, one more per re-anchor), 704
 * bytes each.
 */
final class PublishedPage {

    static final int CLOCKS = 5;
    private static final long BYTES = HEADER_BYTES + CLOCKS * RECORD_BYTES;
    /** Accessed with setVolatile/setRelease for seq; plain MemorySegment stores for the records. */
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    final SeqlockReader reader;
    private final MemorySegment page;
    /** The page's address, passed to the stub (a long: no segment checks on the read path). */
    final long address;

    PublishedPage(SeqlockReader reader, int shift) {
        this.reader = reader;
        this.page = Arena.global().allocate(BYTES, 64);
        this.address = page.address();
        page.set(JAVA_LONG, SHIFT, shift);
    }

    /**
     * Opens the window: the odd seq is stored before any record store. The caller's full fence right after
     * (Timekeeper.beginWrite) also orders it before the writer's counter read, as for the ring's seq.
     */
    void beginWrite(long oddSeq) {
        LONG.setVolatile(page, SEQ, oddSeq);
    }

    /** Fills the records from {@code st} (plain stores), then publishes them with a release store of seq. */
    void publish(TimekeeperState st, int shift, long evenSeq) {
        record(0, st, st.mono, st.offsReal, st.leapMono, st.leapStepNs, shift);
        record(1, st, st.mono, 0, Long.MAX_VALUE, 0, shift);
        record(2, st, st.raw, 0, Long.MAX_VALUE, 0, shift);
        record(3, st, st.mono, st.offsBoot, Long.MAX_VALUE, 0, shift);
        record(4, st, st.mono, st.offsTai, Long.MAX_VALUE, 0, shift);
        // Release: the record stores above are visible before the even seq. Pairs with the stub's first seq
        // load, which x86 keeps ahead of its record loads (TSO; see MachineCode.x86SeqlockRead).
        LONG.setRelease(page, SEQ, evenSeq);
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
        page.set(JAVA_LONG, r + CYCLE_LAST, line.cycleLast);
        page.set(JAVA_LONG, r + MULT_WIDE, multWide);
        page.set(JAVA_LONG, r + K_LOW, kLow);
        page.set(JAVA_LONG, r + K_HIGH, kHigh);
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
     * cycle_last + delta as integers); the first delta at which the line reaches the leap threshold. It is 0
     * (always the slow path) when mult' does not fit 64 bits: mult &gt;= 2^shift, a counter slower than 1 GHz.
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
