package org.timekeeping4j.timekeeper;

/**
 * One line's conversion parameters, as the kernel's struct tk_read_base: the value of the line at counter
 * value {@code c} is
 * <pre>
 *   base + ((xtimeNsec + ((c - cycleLast) &amp; mask) * mult) &gt;&gt;&gt; shift)
 * </pre>
 * {@code base} holds whole ns; {@code xtimeNsec} holds ns shifted left by {@code shift} and, after every
 * update, only the sub-ns remainder ({@code 0 <= xtimeNsec < 2^shift}). Keeping the remainder in shifted
 * ns is what makes accumulation drift-free: the fraction of a ns lost by one update's {@code >>> shift}
 * is carried into the next, so the line after any number of updates equals one conversion of the whole
 * span (the exactness test checks it against a BigInteger reference).
 *
 * <p>Mutable, but only the timekeeper's writer mutates an instance, and only while it is not published
 * (see {@link Timekeeper}). The writer-side arithmetic is 128-bit, so any delta accumulates exactly.
 */
final class TkReadBase {
    long cycleLast;
    final long mask;
    long mult;
    final int shift;
    long xtimeNsec;
    long base;

    TkReadBase(long mask, int shift) {
        this.mask = mask;
        this.shift = shift;
    }

    void copyFrom(TkReadBase o) {
        cycleLast = o.cycleLast;
        mult = o.mult;
        xtimeNsec = o.xtimeNsec;
        base = o.base;
    }

    private long fracMask() {
        return (1L << shift) - 1;
    }

    /**
     * Adds {@code cycles * mult} shifted ns exactly (128-bit product), then moves the whole ns into
     * {@code base}, leaving the sub-ns remainder in {@code xtimeNsec}. Requires 1 <= shift <= 63.
     */
    void accumulate(long cycles) {
        long lo = cycles * mult;
        long hi = Math.unsignedMultiplyHigh(cycles, mult);
        long sum = lo + xtimeNsec; // xtimeNsec is in [0, 2^shift): a carry into hi is possible, a borrow is not
        if (Long.compareUnsigned(sum, lo) < 0) {
            hi++;
        }
        base += (sum >>> shift) | (hi << (64 - shift));
        xtimeNsec = sum & fracMask();
    }

    /**
     * Changes mult at the point {@code offset} cycles after cycleLast without a jump in the line
     * (the kernel's timekeeping_apply_adjustment).
     *
     * <p>Derivation: {@code offset} cycles have not been accumulated yet, so the line's value there is
     * {@code T = xtime + offset * mult} (shifted ns, base left out). With the new mult it must stay the same:
     * {@code xtime + offset * mult = xtime' + offset * (mult + adj)}, hence
     * {@code xtime' = xtime - offset * adj}. The line pivots on the point of change: values at later
     * counter values follow the new slope, the value at the point itself is unchanged. Here the product is
     * taken on 128 bits and split into whole ns (borrowed from or carried to base) and a shifted remainder,
     * so xtimeNsec stays in [0, 2^shift) and nothing can overflow for any offset.
     */
    void applyAdjustment(long offset, long newMult) {
        long adj = newMult - mult;
        if (adj == 0) {
            return;
        }
        long m = Math.abs(adj);
        long lo = offset * m;
        long hi = Math.unsignedMultiplyHigh(offset, m);
        long whole = (lo >>> shift) | (hi << (64 - shift));
        long frac = lo & fracMask();
        if (adj > 0) {
            base -= whole;
            xtimeNsec -= frac;
            if (xtimeNsec < 0) {
                xtimeNsec += 1L << shift;
                base--;
            }
        } else {
            base += whole;
            xtimeNsec += frac;
            if (xtimeNsec > fracMask()) {
                xtimeNsec -= 1L << shift;
                base++;
            }
        }
        mult = newMult;
    }
}
