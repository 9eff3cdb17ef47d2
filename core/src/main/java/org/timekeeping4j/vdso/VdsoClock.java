package org.timekeeping4j.vdso;

import org.timekeeping4j.ClockId;

/**
 * The counter-served clocks: for each, where the kernel's vDSO data keeps its base (lib/vdso/gettimeofday.c:
 * VDSO_HRES clocks in base CS_HRES_COARSE, VDSO_RAW in CS_RAW) and its basetime slot (the clock id). The one
 * list of which clocks a counter read can serve; the tracker's timekeepers serve the same set.
 */
public enum VdsoClock {
    REALTIME(ClockId.REALTIME, 0),
    MONOTONIC(ClockId.MONOTONIC, 0),
    MONOTONIC_RAW(ClockId.MONOTONIC_RAW, 1),
    BOOTTIME(ClockId.BOOTTIME, 0),
    TAI(ClockId.TAI, 0);

    /** CS_HRES_COARSE: the steered clocks and COARSE. */
    public static final int CS_HRES_COARSE = 0;
    /** CS_RAW: MONOTONIC_RAW, never steered. */
    public static final int CS_RAW = 1;

    private static final VdsoClock[] BY_ID = new VdsoClock[ClockId.TAI.id() + 1];

    static {
        for (VdsoClock c : values()) {
            BY_ID[c.clock.id()] = c;
        }
    }

    private final ClockId clock;
    private final int base;

    VdsoClock(ClockId clock, int base) {
        this.clock = clock;
        this.base = base;
    }

    public ClockId clock() {
        return clock;
    }

    /** {@link #CS_HRES_COARSE} or {@link #CS_RAW}. */
    public int base() {
        return base;
    }

    /** The basetime slot: the clock id. */
    public int slot() {
        return clock.id();
    }

    /** The descriptor of {@code clock}, or null for a clock no counter read serves. */
    public static VdsoClock of(ClockId clock) {
        int id = clock.id();
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
