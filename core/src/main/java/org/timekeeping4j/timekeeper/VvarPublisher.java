package org.timekeeping4j.timekeeper;

import static org.timekeeping4j.machine.SeqlockStub.ANY_LIMIT;
import static org.timekeeping4j.machine.SeqlockStub.BASE;
import static org.timekeeping4j.machine.SeqlockStub.CYCLE_LAST;
import static org.timekeeping4j.machine.SeqlockStub.FRESH_LIMIT;
import static org.timekeeping4j.machine.SeqlockStub.HEADER_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.K0;
import static org.timekeeping4j.machine.SeqlockStub.K1;
import static org.timekeeping4j.machine.SeqlockStub.LEAP_STEP;
import static org.timekeeping4j.machine.SeqlockStub.LEAP_THRESHOLD;
import static org.timekeeping4j.machine.SeqlockStub.MULT;
import static org.timekeeping4j.machine.SeqlockStub.MULT_WIDE;
import static org.timekeeping4j.machine.SeqlockStub.OFFSET;
import static org.timekeeping4j.machine.SeqlockStub.RECORD_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.SHIFT;
import static org.timekeeping4j.machine.SeqlockStub.VALID_CYCLES;
import static org.timekeeping4j.machine.SeqlockStub.XTIME;

import java.math.BigInteger;
import org.timekeeping4j.machine.SeqlockPage;

/**
 * Writes a published timekeeper state into a {@link SeqlockPage} in the layout the machine-code read expects
 * (machine.SeqlockStub), one record per high-resolution clock (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME,
 * TAI), inside the same odd window as the timekeeper's ring slot, so a read through the page returns exactly
 * what the Java reader of the ring returns at the same counter value (and what {@link Timekeeper#convert}
 * returns for it). The writer's side of the stub's contract: the records' constants and limits, derived here.
 */
final class VvarPublisher {

    /** One record per counter-served clock, at its {@link CounterClock#record()} index. */
    private static final CounterClock[] CLOCKS = CounterClock.values();
    /** Where k0 and k1 start in a record. */
    private static final long[] K_WORDS = {K0, K1};

    private VvarPublisher() {}

    /** Fills the records from {@code st} (plain stores), then publishes them with a release store of seq. */
    static void publish(SeqlockPage page, TimekeeperState st, int shift) {
        page.set(SHIFT, shift);
        for (CounterClock c : CLOCKS) {
            // The clock's projection, as the Java reader applies it: line, offset, and the leap step (with its
            // sign) from the threshold on for the clocks a leap second moves.
            Projection p = Projection.of(c);
            boolean leap = p.leap() != 0;
            record(page, c.record(), st, p.line(st), p.offset(st), leap ? st.leapMono : Long.MAX_VALUE,
                    p.leap() * st.leapStepNs, shift);
        }
        page.endWrite(); // the release store of the even seq, after the record stores above
    }

    private static void record(SeqlockPage page, int p, TimekeeperState st, TkReadBase line, long offset, long leapThreshold, long leapStep,
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
            page.set(r + K_WORDS[j], sumLow);
            page.set(r + K_WORDS[j] + 8, sumHigh);
        }
        page.set(r + CYCLE_LAST, line.cycleLast);
        page.set(r + MULT_WIDE, multWide);
        page.set(r + FRESH_LIMIT, freshLimit(any, st.validCycles));
        page.set(r + ANY_LIMIT, any);
        page.set(r + VALID_CYCLES, st.validCycles);
        page.set(r + BASE, line.base);
        page.set(r + OFFSET, offset);
        page.set(r + LEAP_THRESHOLD, leapThreshold);
        page.set(r + LEAP_STEP, leapStep);
        page.set(r + MULT, line.mult);
        page.set(r + XTIME, line.xtimeNsec);
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
     * {@code now * mult' + k = lo * mult' + k_hi}, see machine.MachineCode.x86SeqlockRead). That last bound leaves
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
