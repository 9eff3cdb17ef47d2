package org.timekeeping4j.timekeeper;

import org.timekeeping4j.ClockId;

/**
 * The clocks a counter read serves, and how: the one list of them. The kernel's vDSO computes exactly these
 * from the counter (lib/vdso/gettimeofday.c: the VDSO_HRES clocks from base CS_HRES_COARSE, VDSO_RAW from
 * CS_RAW); a {@link Timekeeper} projects each from one of its two lines, in this order; exact mode reads each from its
 * kernel basetime slot.
 *
 * <p>Adding a counter-served clock: a constant here (its {@link #raw() line}), its offset from MONOTONIC in
 * {@link TimekeeperState}. Every other reader takes the set from
 * {@link #values()} and the record index from {@link #record()}.
 */
public enum CounterClock {
    /** CLOCK_REALTIME: MONOTONIC plus the wall-clock offset (and the leap-second step). */
    REALTIME(ClockId.REALTIME, false),
    /** CLOCK_MONOTONIC: the adjusted line itself. */
    MONOTONIC(ClockId.MONOTONIC, false),
    /** CLOCK_MONOTONIC_RAW: the raw line, at the counter's nominal rate. */
    MONOTONIC_RAW(ClockId.MONOTONIC_RAW, true),
    /** CLOCK_BOOTTIME: MONOTONIC plus the time suspended. */
    BOOTTIME(ClockId.BOOTTIME, false),
    /** CLOCK_TAI: REALTIME plus the TAI offset, continuous across leap seconds. */
    TAI(ClockId.TAI, false);

    private static final CounterClock[] BY_ID;

    static {
        int max = 0;
        for (CounterClock c : values()) {
            max = Math.max(max, c.clock.id());
        }
        BY_ID = new CounterClock[max + 1];
        for (CounterClock c : values()) {
            BY_ID[c.clock.id()] = c;
        }
    }

    private final ClockId clock;
    private final boolean raw;

    CounterClock(ClockId clock, boolean raw) {
        this.clock = clock;
        this.raw = raw;
    }

    /** {@return the clock id} */
    public ClockId clock() {
        return clock;
    }

    /**
     * {@return true for the line that no adjustment steers (MONOTONIC_RAW: the kernel's CS_RAW base, a
     * timekeeper's raw line), false for the clocks of the adjusted line (MONOTONIC and its offsets)}
     */
    public boolean raw() {
        return raw;
    }

    /** {@return the index of the clock's projection in a {@link Timekeeper}} */
    public int record() {
        return ordinal();
    }

    /**
     * The descriptor of {@code clock}.
     *
     * @param clock any clock id
     * @return its descriptor, or null for a clock no counter read serves (COARSE, ALARM, CPU-time, AUX ids)
     */
    public static CounterClock of(ClockId clock) {
        int id = clock.id();
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
