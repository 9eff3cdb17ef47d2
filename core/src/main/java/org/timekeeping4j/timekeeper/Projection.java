package org.timekeeping4j.timekeeper;

import org.timekeeping4j.ClockId;

/**
 * What a read returns from a published state: which line, which offset, whether the armed leap second
 * counts, whether the counter is read at all. The one table of the timekeeper's projections: the counter
 * clocks of {@link CounterClock} (their {@link #record} is the clock's {@link CounterClock#record()}), then the
 * COARSE clocks and the TAI offset, which have no record. {@link Timekeeper}'s readers and its history conversion
 * read a clock through its entry here.
 *
 * <p>A record, and constants in static finals: the JIT folds a static final record's fields (a record's
 * fields are trusted as final), so a per-clock read such as {@link Timekeeper#monotonicNanos()} inlines to
 * straight code with its line and offset constant. An enum's instance fields are not folded.
 *
 * @param record  the clock's {@link CounterClock#record()}, or {@link #NO_RECORD}
 * @param raw     true to read the raw line (MONOTONIC_RAW), false for the adjusted one
 * @param offs    which offset from the line: {@link #OFFS_NONE}, {@link #OFFS_REAL}, {@link #OFFS_BOOT},
 *                {@link #OFFS_TAI} or {@link #OFFS_TAI_REAL}
 * @param leap    the sign with which the armed leap second's step counts once the line reaches it: +1 for
 *                REALTIME (it repeats or skips a second), -1 for the TAI offset (TAI - UTC changes by the
 *                opposite), 0 for the clocks a leap second leaves alone
 * @param counter false for the COARSE clocks: the line's value at the last update, no counter read
 * @param addsLine false for the TAI offset: the offset alone (and the leap step), without the line's value
 */
record Projection(int record, boolean raw, int offs, int leap, boolean counter, boolean addsLine) {

    /** {@link #record} of a projection that has no counter clock. */
    static final int NO_RECORD = -1;
    /** {@link #offs}: none, the line itself. */
    static final int OFFS_NONE = 0;
    /** {@link #offs}: offs_real, REALTIME - MONOTONIC. */
    static final int OFFS_REAL = 1;
    /** {@link #offs}: offs_boot, BOOTTIME - MONOTONIC. */
    static final int OFFS_BOOT = 2;
    /** {@link #offs}: offs_tai, TAI - MONOTONIC. */
    static final int OFFS_TAI = 3;
    /** {@link #offs}: offs_tai - offs_real, TAI - UTC before the leap step. */
    static final int OFFS_TAI_REAL = 4;

    static final Projection REALTIME = counter(CounterClock.REALTIME, OFFS_REAL, 1);
    static final Projection MONOTONIC = counter(CounterClock.MONOTONIC, OFFS_NONE, 0);
    static final Projection MONOTONIC_RAW = counter(CounterClock.MONOTONIC_RAW, OFFS_NONE, 0);
    static final Projection BOOTTIME = counter(CounterClock.BOOTTIME, OFFS_BOOT, 0);
    static final Projection TAI = counter(CounterClock.TAI, OFFS_TAI, 0);
    static final Projection REALTIME_COARSE = new Projection(NO_RECORD, false, OFFS_REAL, 1, false, true);
    static final Projection MONOTONIC_COARSE = new Projection(NO_RECORD, false, OFFS_NONE, 0, false, true);
    /** TAI - UTC now: the offset TAI has over REALTIME, minus the leap step once the line passed it. */
    static final Projection TAI_OFFSET = new Projection(NO_RECORD, false, OFFS_TAI_REAL, -1, true, false);

    /** The counter clocks' projections by {@link CounterClock#record()}: in the order of CounterClock. */
    private static final Projection[] BY_RECORD = new Projection[CounterClock.values().length];
    /** By {@link ClockId#ordinal()}: the clocks a timekeeper reads (an ALARM id as its base clock), else null. */
    private static final Projection[] BY_CLOCK = new Projection[ClockId.values().length];

    static {
        for (Projection p : new Projection[] {REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI}) {
            BY_RECORD[p.record] = p;
        }
        for (CounterClock c : CounterClock.values()) {
            if (BY_RECORD[c.record()] == null) {
                throw new ExceptionInInitializerError("no projection for the counter clock " + c);
            }
            BY_CLOCK[c.clock().ordinal()] = BY_RECORD[c.record()];
        }
        BY_CLOCK[ClockId.REALTIME_ALARM.ordinal()] = REALTIME;
        BY_CLOCK[ClockId.BOOTTIME_ALARM.ordinal()] = BOOTTIME;
        BY_CLOCK[ClockId.REALTIME_COARSE.ordinal()] = REALTIME_COARSE;
        BY_CLOCK[ClockId.MONOTONIC_COARSE.ordinal()] = MONOTONIC_COARSE;
    }

    private static Projection counter(CounterClock c, int offs, int leap) {
        return new Projection(c.record(), c.raw(), offs, leap, true, true);
    }

    /**
     * {@return the projection of {@code clock}: the counter clocks, their ALARM twins (read as the base clock)
     * and the COARSE clocks; null for a CPU-time or AUX id}
     */
    static Projection of(ClockId clock) {
        return BY_CLOCK[clock.ordinal()];
    }

    /**
     * The projection of {@code clock}, for the reads that take no user clock.
     *
     * @param clock a clock {@link #of(ClockId)} has a projection for
     * @return its projection, never null
     * @throws IllegalArgumentException for a CPU-time or AUX id, refused before any read
     */
    static Projection require(ClockId clock) {
        Projection p = of(clock);
        if (p == null) {
            throw new IllegalArgumentException(clock + " has no projection in a timekeeper: it reads "
                    + "REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their ALARM twins and the COARSE clocks");
        }
        return p;
    }

    /** {@return the projection of the counter clock {@code c}, whose record it has} */
    static Projection of(CounterClock c) {
        return BY_RECORD[c.record()];
    }

    /** {@return the line this projection reads in {@code st}} */
    TkReadBase line(TimekeeperState st) {
        return raw ? st.raw : st.mono;
    }

    /** {@return the offset this projection adds in {@code st}, ns} */
    long offset(TimekeeperState st) {
        return switch (offs) {
            case OFFS_REAL -> st.offsReal;
            case OFFS_BOOT -> st.offsBoot;
            case OFFS_TAI -> st.offsTai;
            case OFFS_TAI_REAL -> st.offsTai - st.offsReal;
            default -> 0;
        };
    }

    /**
     * The read's result from the line's value and the state's fields (copied to locals by the reader).
     *
     * @param value    the line's value at the counter, ns
     * @param offset   {@link #offset(TimekeeperState)} of the state the value was computed in
     * @param leapMono the state's leapMono: from this line value on, the leap step applies
     * @param leapStep the state's leapStepNs
     * @return what a read of this projection returns, ns (for the TAI offset: TAI - UTC in ns)
     */
    long project(long value, long offset, long leapMono, long leapStep) {
        long step = leap != 0 && value >= leapMono ? leap * leapStep : 0;
        return (addsLine ? value : 0) + offset + step;
    }
}
