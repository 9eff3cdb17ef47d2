package org.timekeeping4j.clocksource;

/**
 * A free-running counter, as the kernel's struct clocksource (include/linux/clocksource.h): stateless,
 * read from any thread, converted to nanoseconds by the timekeeper with {@code (delta * mult) >>> shift}.
 *
 * <h2>Assumptions and guarantees</h2>
 * <ul>
 *   <li>{@link #read()} returns the counter's low {@link #widthBits()} bits; the counter counts up and
 *       wraps to 0 after {@link #mask()}. Deltas are {@code (now - last) & mask}.</li>
 *   <li>Readers of the timekeeper must convert a delta of at most {@link #maxCycles()}: the product
 *       {@code delta * (mult + 11%)} fits 64 bits up to there (room for NTP's adjustment of mult, as the
 *       kernel's clocksource_max_adjustment allows). Beyond it the conversion needs 128 bits
 *       ({@link MultShift#wide}). The timekeeper must update at least every {@link #maxIdleNanos()}
 *       (half the time to max cycles, the kernel's margin), and before the counter wraps.</li>
 *   <li>{@link #isOrdered()}: a read is not executed before the program-order-earlier loads (x86
 *       lfence;rdtsc or rdtscp, arm64 isb;mrs). Unordered reads may be speculated earlier.</li>
 * </ul>
 */
public abstract class Clocksource {

    /** The kernel's rating scale: 1-99 unfit, 100-199 base, 200-299 good, 300-399 desired, 400-499 perfect. */
    public static final int RATING_UNFIT = 1;

    /** The kernel takes 11% of mult as the largest NTP adjustment a clocksource must tolerate. */
    static final int MAX_ADJUSTMENT_PERCENT = 11;

    /** The conversion is made precise for deltas up to this many seconds (the kernel's default is 600 s). */
    public static final long DEFAULT_MAX_CONVERSION_SECONDS = 600;

    private final String name;
    private final int widthBits;
    private final long mask;
    private final double frequencyHz;
    private final MultShift multShift;
    private final long maxCycles;
    private final long maxIdleNanos;
    private final int rating;
    private final boolean continuous;
    private final boolean ordered;

    /**
     * A counter's fixed description, from which the conversion pair and the update bound are derived.
     *
     * @param name        the clocksource's name ("tsc", "arch_sys_counter", "simulated", ...)
     * @param widthBits   the counter width, 1..64
     * @param frequencyHz the counter frequency
     * @param rating      the kernel-style rating
     * @param continuous  whether the counter runs without stopping (CLOCK_SOURCE_IS_CONTINUOUS)
     * @param ordered     whether {@link #read()} is ordered after earlier loads
     * @throws IllegalArgumentException for a width outside 1..64 or a frequency outside 1 Hz..1 THz
     */
    protected Clocksource(String name, int widthBits, double frequencyHz, int rating, boolean continuous,
                          boolean ordered) {
        if (widthBits < 1 || widthBits > 64) {
            throw new IllegalArgumentException("counter width must be 1..64 bits, got " + widthBits);
        }
        if (!(frequencyHz >= 1.0) || frequencyHz > 1e12) {
            throw new IllegalArgumentException("counter frequency must be in 1 Hz..1 THz, got " + frequencyHz);
        }
        this.name = name;
        this.widthBits = widthBits;
        this.mask = widthBits == 64 ? -1L : (1L << widthBits) - 1;
        this.frequencyHz = frequencyHz;
        long maxSeconds = Math.max(1, Math.min(DEFAULT_MAX_CONVERSION_SECONDS, (long) (unsignedToDouble(mask) / frequencyHz)));
        this.multShift = MultShift.calculate(Math.round(frequencyHz), 1_000_000_000L, maxSeconds);
        this.maxCycles = maxCycles(mask, multShift.mult());
        // The kernel keeps half the span as margin (clocksource_update_max_deferment: max_idle_ns = max_nsecs >> 1).
        this.maxIdleNanos = MultShift.wide(maxCycles, multShift.mult() - multShift.mult() * MAX_ADJUSTMENT_PERCENT / 100,
                multShift.shift(), 0) >>> 1;
        this.rating = rating;
        this.continuous = continuous;
        this.ordered = ordered;
    }

    /** The longest delta whose product with (mult + 11%) fits 64 bits, capped at the counter's mask. */
    static long maxCycles(long mask, long mult) {
        long maxAdj = mult * MAX_ADJUSTMENT_PERCENT / 100;
        long cycles = Long.divideUnsigned(-1L, mult + maxAdj);
        return Long.compareUnsigned(cycles, mask) < 0 ? cycles : mask;
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0;
    }

    /** {@return the counter's current value, in its low {@link #widthBits()} bits} */
    public abstract long read();


    /** {@return the clocksource's name} */
    public final String name() {
        return name;
    }

    /** {@return the counter width in bits, 1..64} */
    public final int widthBits() {
        return widthBits;
    }

    /** {@return {@code 2^width - 1}: deltas are masked with it so that a wrap reads as a small positive delta} */
    public final long mask() {
        return mask;
    }

    /** {@return the counter frequency in Hz as this clocksource was created with (nominal or calibrated)} */
    public final double frequencyHz() {
        return frequencyHz;
    }

    /** {@return the cycles-to-ns pair for {@link #frequencyHz()}} */
    public final MultShift multShift() {
        return multShift;
    }

    /** {@return the longest delta the 64-bit conversion handles (see the class comment)} */
    public final long maxCycles() {
        return maxCycles;
    }

    /** {@return the longest the timekeeper may go without an update: half the time to {@link #maxCycles()}} */
    public final long maxIdleNanos() {
        return maxIdleNanos;
    }

    /** {@return the kernel-style rating: higher is preferred} */
    public final int rating() {
        return rating;
    }

    /** {@return CLOCK_SOURCE_IS_CONTINUOUS: the counter never stops (not in idle states, not in suspend-to-idle)} */
    public final boolean isContinuous() {
        return continuous;
    }

    /** {@return whether a read is ordered after program-order-earlier loads} */
    public final boolean isOrdered() {
        return ordered;
    }

    @Override
    public String toString() {
        return name + "[" + widthBits + " bit, " + String.format("%.6f MHz", frequencyHz / 1e6) + ", mult="
                + multShift.mult() + ", shift=" + multShift.shift() + ", rating=" + rating
                + (ordered ? ", ordered" : ", unordered") + "]";
    }
}
