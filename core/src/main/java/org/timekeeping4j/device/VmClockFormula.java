package org.timekeeping4j.device;

/**
 * The VMClock page's arithmetic, in 64-bit pieces (no allocation): the time at a counter value, and the maximum
 * error there. The 128- and 192-bit intermediates are carried as (high, low) pairs of unsigned longs.
 *
 * <p><b>Time.</b> The driver (ptp_vmclock.c, vmclock_get_crosststamp) computes, with {@code delta = C -
 * counter_value} as a u64: {@code r = ((u128) delta * counter_period_frac_sec >> counter_period_shift) +
 * time_frac_sec}, {@code sec = time_sec + (r >> 64)}, {@code nsec = ((r mod 2^64) * 10^9) >> 64}. Here delta is
 * taken as signed (a counter read a little before counter_value, as a reader on another CPU may see, gives a
 * time a little before time_sec rather than one 2^64 ticks later): for delta &ge; 0 the result is the
 * driver's bit for bit; for delta &lt; 0 it is the same exact statement, {@code r = floor(delta * period /
 * 2^shift) + time_frac_sec}, rounded toward minus infinity. Seconds wrap modulo 2^64, as the driver's u64.
 *
 * <p><b>Error.</b> {@code time_maxerror_nanosec + ceil(|delta| * counter_period_maxerror_rate_frac_sec * 10^9 /
 * 2^(64 + shift))}, saturating at {@link Long#MAX_VALUE}: rounded up, so the bound never understates.
 */
final class VmClockFormula {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private VmClockFormula() {}

    /**
     * Writes the page's time at counter value {@code counter} into {@code into.seconds} (u64, wrapping) and
     * {@code into.nanosOfSecond} (0..999,999,999).
     */
    static void time(TimeBounds into, long counter, long counterValue, long period, int shift, long timeSec,
                     long timeFrac) {
        long delta = counter - counterValue;
        long sec;
        long frac;
        if (delta >= 0) {
            long hi = Math.unsignedMultiplyHigh(delta, period);
            long lo = delta * period;
            long qhi = shiftRightHigh(hi, shift);
            long qlo = shiftRightLow(hi, lo, shift);
            frac = qlo + timeFrac;
            long carry = Long.compareUnsigned(frac, qlo) < 0 ? 1 : 0;
            sec = timeSec + qhi + carry;
        } else {
            // -delta as an unsigned 64-bit count: 2^63 for Long.MIN_VALUE, which unsignedMultiplyHigh takes as such.
            long m = -delta;
            long hi = Math.unsignedMultiplyHigh(m, period);
            long lo = m * period;
            long qhi = shiftRightHigh(hi, shift);
            long qlo = shiftRightLow(hi, lo, shift);
            // floor(-P / 2^s) = -ceil(P / 2^s): round the magnitude up where bits were shifted out.
            if (shiftedOutNonZero(hi, lo, shift)) {
                qlo++;
                if (qlo == 0) {
                    qhi++;
                }
            }
            frac = timeFrac - qlo;
            long borrow = Long.compareUnsigned(timeFrac, qlo) < 0 ? 1 : 0;
            sec = timeSec - qhi - borrow;
        }
        into.seconds = sec;
        into.nanosOfSecond = Math.unsignedMultiplyHigh(frac, NANOS_PER_SECOND);
    }

    /**
     * The maximum error in ns at {@code |delta|} ticks from counter_value: {@code maxErrorNanos} (u64) plus the
     * rate's growth rounded up; {@link Long#MAX_VALUE} when it does not fit.
     */
    static long maxError(long delta, long rate, int shift, long maxErrorNanos) {
        if (maxErrorNanos < 0) {
            return Long.MAX_VALUE; // a u64 past 2^63 ns (292 years): no bound worth the name
        }
        long m = delta >= 0 ? delta : -delta; // unsigned magnitude; 2^63 for Long.MIN_VALUE
        // P = m * rate (128 bits: hi, lo); P * 10^9 (192 bits: l2, l1, l0).
        long hi = Math.unsignedMultiplyHigh(m, rate);
        long lo = m * rate;
        long l0 = lo * NANOS_PER_SECOND;
        long loHi = Math.unsignedMultiplyHigh(lo, NANOS_PER_SECOND);
        long hiLo = hi * NANOS_PER_SECOND;
        long l2 = Math.unsignedMultiplyHigh(hi, NANOS_PER_SECOND);
        long l1 = loHi + hiLo;
        if (Long.compareUnsigned(l1, loHi) < 0) {
            l2++;
        }
        // Divide by 2^(64 + shift): drop l0, then shift (l2, l1) right by shift, rounding up.
        long qhi = shiftRightHigh(l2, shift);
        long qlo = shiftRightLow(l2, l1, shift);
        boolean roundUp = l0 != 0 || shiftedOutNonZero(l2, l1, shift);
        if (qhi != 0 || qlo < 0) {
            return Long.MAX_VALUE;
        }
        long growth = roundUp ? qlo + 1 : qlo; // qlo < 2^63, so at most Long.MIN_VALUE when it wraps
        if (growth < 0) {
            return Long.MAX_VALUE;
        }
        long sum = growth + maxErrorNanos;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** High word of the 128-bit (hi, lo) shifted right by {@code s} (0..255). */
    static long shiftRightHigh(long hi, int s) {
        return s == 0 ? hi : s < 64 ? hi >>> s : 0;
    }

    /** Low word of the 128-bit (hi, lo) shifted right by {@code s} (0..255). */
    static long shiftRightLow(long hi, long lo, int s) {
        if (s == 0) {
            return lo;
        }
        if (s < 64) {
            return (lo >>> s) | (hi << (64 - s));
        }
        return s < 128 ? hi >>> (s - 64) : 0;
    }

    /** Whether the 128-bit (hi, lo) has a one among its {@code s} lowest bits. */
    static boolean shiftedOutNonZero(long hi, long lo, int s) {
        if (s == 0) {
            return false;
        }
        if (s < 64) {
            return (lo & ((1L << s) - 1)) != 0;
        }
        if (lo != 0) {
            return true;
        }
        if (s == 64) {
            return false;
        }
        return s >= 128 ? hi != 0 : (hi & ((1L << (s - 64)) - 1)) != 0;
    }
}
