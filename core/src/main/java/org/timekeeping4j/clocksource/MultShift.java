package org.timekeeping4j.clocksource;

/**
 * The fixed-point pair that converts counter cycles to nanoseconds: {@code ns = (cycles * mult) >>> shift}.
 *
 * <h2>How the pair is chosen (kernel/time/clocksource.c, clocks_calc_mult_shift)</h2>
 * The ideal factor is {@code to / from} (10^9 / frequency for cycles to ns). It is represented as
 * {@code mult / 2^shift}; the larger the shift, the finer the factor's resolution
 * ({@code 2^-shift} relative), but the product {@code cycles * mult} must fit 64 bits for the longest
 * delta ever converted, {@code maxSeconds * from} cycles. So:
 * <ol>
 *   <li>{@code sftacc}: the bits left for mult once the delta takes its share: start at 32 and take one
 *       bit off for every bit of {@code (maxSeconds * from) >> 32};</li>
 *   <li>from {@code shift = 32} downwards, {@code mult = round(to * 2^shift / from)}; the first shift whose
 *       mult fits in {@code sftacc} bits wins (the largest shift, hence the finest resolution, that
 *       cannot overflow).</li>
 * </ol>
 * Rounding ({@code + from / 2}) makes the error of the factor at most half a unit of mult:
 * {@code 2^-(shift+1)} relative, below 0.12 ppb for shift >= 32.
 *
 * @param mult  the multiplier, an unsigned 32-bit value in a long
 * @param shift the right shift, 0..32
 */
public record MultShift(long mult, int shift) {

    /**
     * Checks the pair.
     *
     * @param mult  the multiplier, 1..2^32-1
     * @param shift the right shift, 0..32
     * @throws IllegalArgumentException if either is out of range
     */
    public MultShift {
        if (mult <= 0 || mult > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("mult must be in 1..2^32-1, got " + mult);
        }
        if (shift < 0 || shift > 32) {
            throw new IllegalArgumentException("shift must be in 0..32, got " + shift);
        }
    }

    /**
     * The pair converting a {@code from} Hz counter to {@code to} units per second, precise for deltas up
     * to {@code maxSeconds} without overflowing the 64-bit product.
     *
     * @param from       the counter frequency, Hz
     * @param to         the target units per second (10^9 for nanoseconds)
     * @param maxSeconds the longest delta, in seconds, the pair must convert without overflow
     * @return the pair with the largest shift that fits
     * @throws IllegalArgumentException if any argument is not positive
     */
    public static MultShift calculate(long from, long to, long maxSeconds) {
        if (from <= 0 || to <= 0 || maxSeconds <= 0) {
            throw new IllegalArgumentException("from, to and maxSeconds must be positive");
        }
        // How many bits of the product the delta needs beyond 32 (the kernel's sftacc loop).
        long tmp = Math.multiplyHigh(maxSeconds, from) != 0 ? -1L : (maxSeconds * from) >>> 32;
        int sftacc = 32;
        while (tmp != 0 && sftacc > 0) {
            tmp >>>= 1;
            sftacc--;
        }
        // Largest shift whose rounded mult fits in sftacc bits.
        long mult = 0;
        int sft;
        for (sft = 32; sft > 0; sft--) {
            mult = ((to << sft) + from / 2) / from; // to << 32 fits: to is at most 10^9 < 2^30 in practice
            if ((mult >>> sftacc) == 0) {
                break;
            }
        }
        if (sft == 0) {
            mult = (to + from / 2) / from;
        }
        return new MultShift(Math.max(mult, 1), sft);
    }

    /**
     * {@code (cycles * mult) >>> shift} for a delta small enough not to overflow (at most the max cycles).
     *
     * @param cycles a counter delta
     * @return the delta in the target units
     */
    public long toNanos(long cycles) {
        return (cycles * mult) >>> shift;
    }

    /**
     * The same conversion for any unsigned 64-bit delta: a 128-bit product (Math.multiplyHigh) so that a
     * delta beyond the max cycles is converted exactly instead of overflowing.
     *
     * @param cycles a counter delta, unsigned
     * @return the delta in the target units
     */
    public long toNanosWide(long cycles) {
        return wide(cycles, mult, shift, 0);
    }

    /**
     * {@code (cycles * mult + addend) >>> shift} computed on 128 bits, for unsigned {@code cycles} and
     * a non-negative {@code addend}: the reader's slow path when the delta exceeds the max cycles.
     *
     * @param cycles the delta, unsigned
     * @param mult   the multiplier
     * @param shift  the right shift, 0..32
     * @param addend added to the product before the shift (the timekeeper's shifted nanoseconds)
     * @return the low 64 bits of the shifted 128-bit sum
     */
    public static long wide(long cycles, long mult, int shift, long addend) {
        long lo = cycles * mult;
        long hi = Math.unsignedMultiplyHigh(cycles, mult);
        long sum = lo + addend;
        if (Long.compareUnsigned(sum, lo) < 0) {
            hi++;
        }
        return shift == 0 ? sum : (sum >>> shift) | (hi << (64 - shift));
    }

    /** {@return the frequency this pair implies, in Hz: {@code 10^9 * 2^shift / mult}} */
    public double impliedFrequencyHz() {
        return frequencyHz(mult, shift);
    }

    /**
     * The counter frequency a pair converting cycles to ns stands for: {@code 10^9 * 2^shift / mult}. The one
     * place that turns a mult and shift (the kernel's, a timekeeper's) into Hz.
     *
     * @param mult  ns per cycle, times 2^shift
     * @param shift the right shift
     * @return Hz
     */
    public static double frequencyHz(long mult, int shift) {
        return Math.scalb(1e9, shift) / mult;
    }
}
