package org.timekeeping4j.vdso;

import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * One parameter set the kernel published (both bases, every counter clock's basetime) as {@link #STRIDE} longs
 * in an array, with the counter values at which a reader saw it published and the seq counts it carried: the
 * unit of {@link ParameterHistory}. Static helpers over {@code long[]} and an offset, so that a history and a
 * converter's scratch copy hold sets without an object per set.
 *
 * <p>A set is a line: a clock's value at counter value c is its basetime plus (c - cycle_last) times mult,
 * shifted (the vDSO's formula, {@link VdsoFormula#ns}). Consecutive updates that keep the line (the same mult and
 * shift, the new basetime on the old line at the new cycle_last) give every counter value the same clock value,
 * and are kept as one set.
 *
 * <p>Counter values come in two units. Sightings ({@link #FIRST_SEEN}, {@link #LAST_SEEN}) and the values a caller
 * converts are ticks: what {@code Clocks.ticks()} reads (the TSC on x86_64). The kernel's fields (cycle_last, a
 * meeting point) are in its clocksource's cycles: the same on tsc; on kvm-clock (clock_mode PVCLOCK) pvclock
 * nanoseconds, which the set's copy of the pvclock page ({@link #PV}) makes from ticks exactly as the vDSO does
 * ({@link #cycles}).
 */
public final class ParameterSet {

    /** The counter value at which a reader first saw the set published. */
    public static final int FIRST_SEEN = 0;
    /** The counter value at which a reader last saw the set (or one on its line) still published. */
    public static final int LAST_SEEN = 1;
    /** The seq count of the first update on this line that a reader saw (unsigned 32 bits). */
    public static final int FIRST_SEQ = 2;
    /** The seq count of the last update on this line that a reader saw. */
    public static final int LAST_SEQ = 3;
    /** Where the bases begin: per base (CS_HRES_COARSE, CS_RAW) cycle_last, mult, shift, mask, max_cycles. */
    public static final int BASE = 4;
    public static final int BASE_FIELDS = 5;
    /** Where the basetimes begin: per counter clock (by ordinal) sec, then nsec (shifted). */
    public static final int TIMES = BASE + 2 * BASE_FIELDS;
    /** The data's clock_mode when the set was seen (VDSO_CLOCKMODE_TSC, PVCLOCK...). */
    public static final int MODE = TIMES + 2 * CounterClock.values().length;
    /**
     * Where clock_mode is PVCLOCK, the pvclock page the set was seen with: tsc_timestamp, system_time,
     * tsc_to_system_mul, tsc_shift; else 0s. A change of the page alone (no update of the data) is a new set.
     */
    public static final int PV = MODE + 1;
    /** longs per set. */
    public static final int STRIDE = PV + 4;

    /** The counter clocks, once: {@code values()} copies its array at each call, and conversions allocate nothing. */
    static final CounterClock[] CLOCKS = CounterClock.values();


    private ParameterSet() {}

    /** {@return the offset in a set of {@code clock}'s base's fields} */
    static int base(CounterClock clock) {
        return BASE + VdsoLayout.base(clock) * BASE_FIELDS;
    }

    /**
     * {@code clock}'s nanoseconds at {@code counter} on the set at {@code at}: exactly what the vDSO computes from
     * that set (its formula, its overflow handling), the time namespace's offset not included.
     */
    static long value(VdsoLayout l, long[] s, int at, CounterClock clock, long counter) {
        return value(l, s, at, at, clock, counter);
    }

    /**
     * {@code clock}'s nanoseconds at {@code counter} by the data of the set at {@code at} and the pvclock page of
     * the set at {@code pageAt}: what a reader computed where the host moved the page and the kernel's data did not
     * follow yet, or the other way round.
     */
    static long value(VdsoLayout l, long[] s, int at, int pageAt, CounterClock clock, long counter) {
        int b = at + base(clock);
        int t = at + TIMES + 2 * clock.ordinal();
        return s[t] * 1_000_000_000L + VdsoFormula.ns(l, cycles(s, pageAt, counter), s[b], s[b + 4], s[b + 3],
                s[b + 1], (int) s[b + 2], s[t + 1]);
    }

    /** {@return whether the set at {@code at} counts in pvclock nanoseconds (kvm-clock)} */
    static boolean pvclock(long[] s, int at) {
        return s[at + MODE] == VclockCode.MODE_PVCLOCK;
    }

    /**
     * Ticks {@code ticks} in the kernel's cycles as the set at {@code at} saw them: the same on tsc; on kvm-clock
     * what vread_pvclock makes of them with the set's pvclock page (before its tsc_timestamp, the page's line
     * backwards).
     */
    static long cycles(long[] s, int at, long ticks) {
        return pvclock(s, at) ? VdsoFormula.pvclockLine(ticks, s[at + PV], s[at + PV + 1], s[at + PV + 2],
                (int) s[at + PV + 3]) : ticks;
    }

    /** A span of {@code ticks} (>= 0) in the kernel's cycles of the set at {@code at}, rounded up. */
    static double span(long[] s, int at, long ticks) {
        return pvclock(s, at) ? Math.ceil(Math.scalb((double) ticks * s[at + PV + 2], (int) s[at + PV + 3] - 32))
                : ticks;
    }

    /** The ticks in {@code cycles} (>= 0) of the kernel's cycles of the set at {@code at}. */
    static double ticks(long[] s, int at, double cycles) {
        return pvclock(s, at) ? Math.scalb(cycles / Math.max(1, s[at + PV + 2]), 32 - (int) s[at + PV + 3]) : cycles;
    }

    /** {@return whether the sets count the same way: clock_mode, and the same pvclock page where PVCLOCK} */
    static boolean sameCounter(long[] a, int at, long[] b, int bt) {
        for (int i = MODE; i < STRIDE; i++) {
            if (a[at + i] != b[bt + i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the set at {@code bt} in {@code b} lies on the line of the set at {@code at} in {@code a}: the same
     * mult, shift, mask and max_cycles in both bases, and every basetime where the older line puts it at the newer
     * cycle_last (in shifted nanoseconds, exactly). Then both give every counter value the same clock value.
     */
    static boolean sameLine(long[] a, int at, long[] b, int bt) {
        if (!sameCounter(a, at, b, bt)) {
            return false;
        }
        for (int base = 0; base < 2; base++) {
            int fa = at + BASE + base * BASE_FIELDS;
            int fb = bt + BASE + base * BASE_FIELDS;
            if (a[fa + 1] != b[fb + 1] || a[fa + 2] != b[fb + 2] || a[fa + 3] != b[fb + 3] || a[fa + 4] != b[fb + 4]) {
                return false;
            }
        }
        for (CounterClock c : CLOCKS) {
            int fa = at + base(c);
            int fb = bt + base(c);
            int ta = at + TIMES + 2 * c.ordinal();
            int tb = bt + TIMES + 2 * c.ordinal();
            int shift = (int) a[fa + 2];
            long cycles = b[fb] - a[fa];
            if (cycles < 0 || shift < 0 || shift > 32) {
                return false;
            }
            try {
                long moved = Math.multiplyExact(cycles, a[fa + 1]); // the older line's growth, shifted ns
                long said = Math.addExact(Math.multiplyExact(b[tb] - a[ta], 1_000_000_000L << shift), b[tb + 1] - a[ta + 1]);
                if (moved != said) {
                    return false;
                }
            } catch (ArithmeticException e) {
                return false; // too far apart to compare in 64 bits: kept as two sets
            }
        }
        return true;
    }

    /**
     * The counter value at which the kernel made the set at {@code bt} from the one at {@code at}, where it can be
     * told: timekeeping_adjust changes mult by adj at its update and moves the base back by the cycles it read past
     * the new cycle_last times adj (timekeeping_apply_adjustment), so that the old and new lines meet at the
     * counter value the kernel read then. That value is earlier than the new set's publication, so a counter value
     * at or before it was served by the old set. Every HRES basetime must tell the same.
     *
     * @return the counter value (the kernel's cycles, {@link #cycles}), or {@link Long#MIN_VALUE} where the sets are
     *         not one adjustment apart (mult the same, a set of REALTIME, a leap second, another clocksource or
     *         pvclock page)
     */
    static long meetingPoint(long[] a, int at, long[] b, int bt) {
        if (!sameCounter(a, at, b, bt)) {
            return Long.MIN_VALUE;
        }
        int fa = at + BASE;
        int fb = bt + BASE;
        long adj = b[fb + 1] - a[fa + 1];
        long cycles = b[fb] - a[fa];
        int shift = (int) a[fa + 2];
        if (adj == 0 || cycles < 0 || a[fa + 2] != b[fb + 2] || shift < 0 || shift > 32) {
            return Long.MIN_VALUE;
        }
        long offset = Long.MIN_VALUE;
        for (CounterClock c : CLOCKS) {
            if (c.raw()) {
                continue;
            }
            int ta = at + TIMES + 2 * c.ordinal();
            int tb = bt + TIMES + 2 * c.ordinal();
            long d;
            try {
                long moved = Math.multiplyExact(cycles, a[fa + 1]);
                long said = Math.addExact(Math.multiplyExact(b[tb] - a[ta], 1_000_000_000L << shift), b[tb + 1] - a[ta + 1]);
                d = Math.subtractExact(moved, said);
            } catch (ArithmeticException e) {
                return Long.MIN_VALUE;
            }
            if (d % adj != 0 || d / adj < 0 || (offset != Long.MIN_VALUE && d / adj != offset)) {
                return Long.MIN_VALUE;
            }
            offset = d / adj;
        }
        return b[fb] + offset;
    }

    /** {@return REALTIME - MONOTONIC in the set at {@code at}, ns: a set of REALTIME moves it, a tick never} */
    static long lead(long[] s, int at) {
        int r = at + TIMES + 2 * CounterClock.REALTIME.ordinal();
        int m = at + TIMES + 2 * CounterClock.MONOTONIC.ordinal();
        return VdsoFormula.lead(s[r], s[r + 1], s[m], s[m + 1], s[at + BASE + 2]);
    }

    /** Copies the set at {@code from} in {@code src} to {@code to} in {@code dst}. */
    static void copy(long[] src, int from, long[] dst, int to) {
        System.arraycopy(src, from, dst, to, STRIDE);
    }

    /** {@return whether unsigned 32-bit seq count {@code later} is {@code earlier}'s next update (2 on)} */
    static boolean next(long earlier, long later) {
        return (int) (later - earlier) == 2;
    }
}
