package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link VmClockFormula} against an independent statement of the driver's arithmetic in BigInteger: random
 * fields, counter values on both sides of counter_value at every distance, every shift 0..63 (and beyond).
 */
class VmClockFormulaTest {

    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
    private static final BigInteger MASK_64 = TWO_64.subtract(BigInteger.ONE);
    private static final BigInteger TWO_63 = BigInteger.ONE.shiftLeft(63);
    private static final BigInteger BILLION = BigInteger.valueOf(1_000_000_000L);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private static BigInteger u(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    /** C - counter_value, modulo 2^64, read as a two's-complement signed count. */
    private static BigInteger signedDelta(long counter, long counterValue) {
        BigInteger d = u(counter).subtract(u(counterValue)).mod(TWO_64);
        return d.compareTo(TWO_63) >= 0 ? d.subtract(TWO_64) : d;
    }

    /**
     * The time: r = floor(delta * period / 2^shift) + time_frac; sec = time_sec + floor(r / 2^64) mod 2^64;
     * nsec = floor((r mod 2^64) * 10^9 / 2^64). {sec, nsec}.
     */
    static BigInteger[] time(long counter, long counterValue, long period, int shift, long timeSec, long timeFrac) {
        BigInteger r = signedDelta(counter, counterValue).multiply(u(period)).shiftRight(shift).add(u(timeFrac));
        BigInteger sec = u(timeSec).add(r.shiftRight(64)).mod(TWO_64);
        BigInteger frac = r.mod(TWO_64);
        return new BigInteger[] {sec, frac.multiply(BILLION).shiftRight(64)};
    }

    /** The driver as written, for delta &ge; 0: u64 delta, u128 product, shift, add, split. */
    static BigInteger[] driver(long counter, long counterValue, long period, int shift, long timeSec, long timeFrac) {
        BigInteger two128 = BigInteger.ONE.shiftLeft(128);
        BigInteger delta = u(counter).subtract(u(counterValue)).mod(TWO_64);
        BigInteger res = delta.multiply(u(period)).mod(two128).shiftRight(shift).add(u(timeFrac)).mod(two128);
        BigInteger sec = res.shiftRight(64).add(u(timeSec)).mod(TWO_64);
        return new BigInteger[] {sec, res.and(MASK_64).multiply(BILLION).shiftRight(64)};
    }

    /** ceil(|delta| * rate * 10^9 / 2^(64 + shift)) + maxerror, saturating at Long.MAX_VALUE. */
    static long maxError(long delta, long rate, int shift, long maxErrorNanos) {
        BigInteger m = BigInteger.valueOf(delta).abs();
        BigInteger num = m.multiply(u(rate)).multiply(BILLION);
        BigInteger den = BigInteger.ONE.shiftLeft(64 + shift);
        BigInteger[] qr = num.divideAndRemainder(den);
        BigInteger growth = qr[1].signum() != 0 ? qr[0].add(BigInteger.ONE) : qr[0];
        BigInteger sum = growth.add(u(maxErrorNanos));
        return sum.compareTo(LONG_MAX) > 0 || u(maxErrorNanos).compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE
                : sum.longValueExact();
    }

    private static long distance(SplittableRandom rnd) {
        int bits = rnd.nextInt(64);
        long d = bits == 0 ? 0 : rnd.nextLong() >>> (64 - bits);
        return rnd.nextBoolean() ? d : -d;
    }

    private static long field(SplittableRandom rnd) {
        // Full-width values, small ones and the edges all occur.
        return switch (rnd.nextInt(6)) {
            case 0 -> 0;
            case 1 -> -1L;
            case 2 -> rnd.nextLong() >>> rnd.nextInt(64);
            default -> rnd.nextLong();
        };
    }

    @Test
    void timeMatchesTheBigIntegerStatementOverRandomPagesAtEveryShift() {
        SplittableRandom rnd = new SplittableRandom(0x5eed_33L);
        TimeBounds into = new TimeBounds();
        int before = 0;
        int after = 0;
        for (int shift = 0; shift < 64; shift++) {
            for (int i = 0; i < 3000; i++) {
                long counterValue = field(rnd);
                long period = field(rnd);
                long timeSec = field(rnd);
                long timeFrac = field(rnd);
                long counter = counterValue + distance(rnd);
                VmClockFormula.time(into, counter, counterValue, period, shift, timeSec, timeFrac);
                BigInteger[] want = time(counter, counterValue, period, shift, timeSec, timeFrac);
                String where = "shift " + shift + " C " + Long.toUnsignedString(counter) + " cv "
                        + Long.toUnsignedString(counterValue) + " period " + Long.toUnsignedString(period)
                        + " sec " + Long.toUnsignedString(timeSec) + " frac " + Long.toUnsignedString(timeFrac);
                assertThat(u(into.seconds)).as(where).isEqualTo(want[0]);
                assertThat(BigInteger.valueOf(into.nanosOfSecond)).as(where).isEqualTo(want[1]);
                if (counter - counterValue >= 0) {
                    after++;
                    BigInteger[] drv = driver(counter, counterValue, period, shift, timeSec, timeFrac);
                    assertThat(u(into.seconds)).as("driver, " + where).isEqualTo(drv[0]);
                    assertThat(BigInteger.valueOf(into.nanosOfSecond)).as("driver, " + where).isEqualTo(drv[1]);
                } else {
                    before++;
                }
            }
        }
        assertThat(before).as("counters before counter_value").isGreaterThan(50_000);
        assertThat(after).as("counters at or after counter_value").isGreaterThan(50_000);
    }

    @Test
    void timeAtTheEdgesOfDeltaAndShift() {
        long[] deltas = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 1L << 32, -(1L << 32)};
        long[] values = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 0x5555_5555_5555_5555L};
        int[] shifts = {0, 1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 200, 255};
        TimeBounds into = new TimeBounds();
        for (long delta : deltas) {
            for (long period : values) {
                for (long frac : values) {
                    for (int shift : shifts) {
                        long cv = 0x1234_5678_9abc_def0L;
                        VmClockFormula.time(into, cv + delta, cv, period, shift, 1_700_000_000L, frac);
                        BigInteger[] want = time(cv + delta, cv, period, shift, 1_700_000_000L, frac);
                        String where = "delta " + delta + " period " + period + " frac " + frac + " shift " + shift;
                        assertThat(u(into.seconds)).as(where).isEqualTo(want[0]);
                        assertThat(BigInteger.valueOf(into.nanosOfSecond)).as(where).isEqualTo(want[1]);
                    }
                }
            }
        }
    }

    @Test
    void maxErrorMatchesTheBigIntegerStatementRoundedUp() {
        SplittableRandom rnd = new SplittableRandom(0xb0_0d_33L);
        int bounded = 0;
        for (int shift = 0; shift < 64; shift++) {
            for (int i = 0; i < 3000; i++) {
                long delta = distance(rnd);
                long rate = field(rnd);
                long maxError = rnd.nextInt(4) == 0 ? field(rnd) : rnd.nextLong(1_000_000_000L);
                long got = VmClockFormula.maxError(delta, rate, shift, maxError);
                assertThat(got).as("delta %d rate %s shift %d maxerror %s", delta, Long.toUnsignedString(rate),
                        shift, Long.toUnsignedString(maxError)).isEqualTo(maxError(delta, rate, shift, maxError));
                if (got != Long.MAX_VALUE) {
                    bounded++;
                }
            }
        }
        assertThat(bounded).as("cases with a finite bound").isGreaterThan(50_000);
        // Beyond 63: the same statement.
        for (int shift : new int[] {64, 100, 128, 255}) {
            assertThat(VmClockFormula.maxError(-1L << 40, -1L, shift, 7))
                    .isEqualTo(maxError(-1L << 40, -1L, shift, 7));
        }
    }

    @Test
    void aRealisticPageGivesTheExpectedNanoseconds() {
        // A 3 GHz counter: period 2^64 / 3e9 at shift 0; one second of ticks after counter_value is one second.
        long period = new BigInteger("18446744073709551616").divide(BigInteger.valueOf(3_000_000_000L)).longValue();
        TimeBounds into = new TimeBounds();
        VmClockFormula.time(into, 1_000 + 3_000_000_000L, 1_000, period, 0, 1_700_000_000L, 0);
        assertThat(into.seconds).isEqualTo(1_700_000_000L);
        assertThat(into.nanosOfSecond).isEqualTo(999_999_999L); // the period rounds down: never ahead
        VmClockFormula.time(into, 1_000 - 3_000_000L, 1_000, period, 0, 1_700_000_000L, 0);
        assertThat(into.seconds).isEqualTo(1_699_999_999L);
        assertThat(into.nanosOfSecond).isEqualTo(999_000_000L);
        // 100 ppm of the period, 1 s of ticks: 100 us on top of 5 us.
        long rate = period / 10_000;
        assertThat(VmClockFormula.maxError(3_000_000_000L, rate, 0, 5_000)).isBetween(104_999L, 105_001L);
    }
}
