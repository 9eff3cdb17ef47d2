package org.timekeeping4j.adjust;

/**
 * An adjtimex-like steering state (kernel/time/ntp.c reduced to what a user-space timekeeper needs):
 * a frequency offset, a phase slew at a bounded rate (adjtime()) and a pending leap second.
 *
 * <h2>Assumptions and guarantees</h2>
 * User threads call the setters; the timekeeper's writer calls the {@link ClockAdjustment} methods.
 * All methods synchronise on this object; nothing here is on a clock read path. A change takes effect
 * at the timekeeper's next update (the kernel's adjtimex likewise waits for the next tick).
 *
 * <h2>Slew accounting</h2>
 * The remaining offset is kept exactly in units of 10^-9 ns (ppb times ns), so the amount slewed in an
 * interval, {@code elapsed * rate}, is debited without rounding. The rate is the configured maximum
 * (default 500 ppm, as adjtime()) until less than one interval's worth remains; then it is lowered to
 * {@code remaining / lastInterval} so that the slew ends near the target instead of overshooting by up
 * to a whole interval. A slew never reverses: an interval longer than predicted ends it at zero.
 * Offsets beyond {@link #MAX_SLEW_NANOS} should be stepped instead.
 */
public final class NtpAdjuster implements ClockAdjustment {

    /** The kernel's MAXFREQ: the frequency offset is limited to +-500 ppm. */
    public static final long MAX_FREQUENCY_PPB = 500_000;
    /** adjtime()'s slew rate: 500 ppm. */
    public static final long DEFAULT_SLEW_RATE_PPB = 500_000;
    /** Largest offset accepted by {@link #slew(long)}: 5 s (5 * 10^18 units of 10^-9 ns fits a long). */
    public static final long MAX_SLEW_NANOS = 5_000_000_000L;

    private static final long PPB = 1_000_000_000L;

    private long frequencyPpb;
    private final long slewRatePpb;
    /** Offset still to slew, in 10^-9 ns (ns * 10^9); the sign is the direction. */
    private long slewRemaining;
    /** The slew rate the adjusted line ran at since the previous update (signed ppb). */
    private long currentSlewPpb;
    private int leap = LEAP_NONE;
    private long leapsApplied;

    /** An adjuster slewing at most {@link #DEFAULT_SLEW_RATE_PPB}, like adjtime(3)'s 500 ppm. */
    public NtpAdjuster() {
        this(DEFAULT_SLEW_RATE_PPB);
    }

    /**
     * An adjuster slewing at most {@code slewRatePpb}.
     *
     * @param slewRatePpb the largest slew rate, 1..500 ppm expressed in ppb
     * @throws IllegalArgumentException if the rate is out of range
     */
    public NtpAdjuster(long slewRatePpb) {
        if (slewRatePpb <= 0 || slewRatePpb > MAX_FREQUENCY_PPB) {
            throw new IllegalArgumentException("slew rate must be 1..500000 ppb, got " + slewRatePpb);
        }
        this.slewRatePpb = slewRatePpb;
    }

    /**
     * Sets the frequency offset.
     *
     * @param ppb parts per billion, within +-500 ppm (positive: the adjusted clocks run faster than the raw line)
     * @throws IllegalArgumentException if the offset is beyond +-500 ppm
     */
    public synchronized void setFrequencyPpb(long ppb) {
        if (Math.abs(ppb) > MAX_FREQUENCY_PPB) {
            throw new IllegalArgumentException("frequency offset must be within +-500 ppm, got " + ppb + " ppb");
        }
        this.frequencyPpb = ppb;
    }

    /**
     * Sets the frequency in adjtimex's scale (struct timex.freq: ppm with a 16-bit fraction);
     * {@code ppb = round(scaled * 1000 / 2^16)}.
     *
     * @param scaledPpm ppm &lt;&lt; 16
     * @throws IllegalArgumentException if the offset is beyond +-500 ppm
     */
    public void setFrequencyScaledPpm(long scaledPpm) {
        setFrequencyPpb(Math.round(scaledPpm * 1000.0 / 65536.0));
    }

    /** {@return the frequency offset in ppb} */
    public synchronized long frequencyPpb() {
        return frequencyPpb;
    }

    /** {@return the frequency in adjtimex's scale (ppm &lt;&lt; 16), rounded} */
    public synchronized long frequencyScaledPpm() {
        return Math.round(frequencyPpb * 65536.0 / 1000.0);
    }

    /**
     * Starts slewing the adjusted clocks by {@code offsetNanos} at the bounded rate, replacing any slew in
     * progress, like adjtime().
     *
     * @param offsetNanos the offset to apply, ns, within +-5 s (positive: ahead)
     * @return what was left of the previous slew, in ns
     * @throws IllegalArgumentException if the offset is beyond +-5 s (step the clock instead)
     */
    public synchronized long slew(long offsetNanos) {
        if (Math.abs(offsetNanos) > MAX_SLEW_NANOS) {
            throw new IllegalArgumentException("slew offsets are limited to +-5 s (step instead), got " + offsetNanos);
        }
        long previous = slewRemaining / PPB;
        slewRemaining = offsetNanos * PPB;
        return previous;
    }

    /** {@return what is left of the current slew, in ns (truncated toward zero)} */
    public synchronized long remainingSlewNanos() {
        return slewRemaining / PPB;
    }

    /** Arms a leap second insertion at the next UTC midnight (STA_INS). */
    public synchronized void insertLeapSecond() {
        leap = LEAP_INSERT;
    }

    /** Arms a leap second deletion at the next UTC midnight (STA_DEL). */
    public synchronized void deleteLeapSecond() {
        leap = LEAP_DELETE;
    }

    /** Disarms a pending leap second. */
    public synchronized void clearLeapSecond() {
        leap = LEAP_NONE;
    }

    /** {@return how many leap seconds (inserted or deleted) this adjuster has applied} */
    public synchronized long leapSecondsApplied() {
        return leapsApplied;
    }

    @Override
    public synchronized long frequencyPpb(long elapsedNanos) {
        if (currentSlewPpb != 0) {
            // Debit what the last interval slewed: elapsed ns at currentSlewPpb is elapsed * rate units of 1e-9 ns.
            long slewed;
            try {
                slewed = Math.multiplyExact(elapsedNanos, currentSlewPpb);
            } catch (ArithmeticException overflow) {
                slewed = slewRemaining;
            }
            long left = slewRemaining - slewed;
            // Never reverse: crossing zero ends the slew.
            slewRemaining = Long.signum(left) == Long.signum(slewRemaining) ? left : 0;
            if (Math.abs(slewRemaining) < PPB) {
                slewRemaining = 0; // less than a ns: done
            }
        }
        long rate = 0;
        if (slewRemaining != 0) {
            rate = slewRatePpb;
            if (elapsedNanos > 0) {
                // Less than one more interval (of the last one's length) to go: slow down to land on it.
                long needed = -Math.floorDiv(-Math.abs(slewRemaining), elapsedNanos); // ceil(|remaining| / elapsed)
                rate = Math.min(rate, needed);
            }
            rate *= Long.signum(slewRemaining);
        }
        currentSlewPpb = rate;
        return frequencyPpb + rate;
    }

    @Override
    public synchronized int pendingLeap() {
        return leap;
    }

    @Override
    public synchronized void leapApplied(int direction) {
        if (leap == direction) {
            leap = LEAP_NONE;
            leapsApplied++;
        }
    }
}
