package org.timekeeping4j;


/**
 * Every fixed Linux clock id (include/uapi/linux/time.h), with the kernel's number.
 *
 * <p>Ids 10 (the removed CLOCK_SGI_CYCLE) and 12..15 are not clocks; negative ids encode CPU-time
 * clocks of other processes and clocks of open file descriptors (a PTP hardware clock's:
 * {@code device.PtpClock.clockId()}). The AUX clocks (Linux 6.17+) exist only where the kernel has them and only
 * once enabled.
 */
public enum ClockId {
    /** Wall-clock time since the epoch: NTP-slewed, can be stepped. */
    REALTIME(0),
    /** Time since boot, not counting suspend: NTP-slewed frequency, never stepped. */
    MONOTONIC(1),
    /** CPU time consumed by this process. */
    PROCESS_CPUTIME_ID(2),
    /** CPU time consumed by the calling thread. */
    THREAD_CPUTIME_ID(3),
    /** The counter scaled by the clocksource's fixed mult/shift: no NTP adjustment at all. */
    MONOTONIC_RAW(4),
    /** REALTIME at the kernel's last tick: cheap, coarse (resolution = one tick). */
    REALTIME_COARSE(5),
    /** MONOTONIC at the kernel's last tick. */
    MONOTONIC_COARSE(6),
    /** MONOTONIC plus the time spent in suspend. */
    BOOTTIME(7),
    /** REALTIME for alarm timers; readable only where an alarm-capable RTC is registered. */
    REALTIME_ALARM(8),
    /** BOOTTIME for alarm timers; readable only where an alarm-capable RTC is registered. */
    BOOTTIME_ALARM(9),
    /** International Atomic Time: REALTIME plus the kernel's TAI offset (0 unless a daemon sets it). */
    TAI(11),
    /** Auxiliary clock 0 (CLOCK_AUX + 0, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_0(16),
    /** Auxiliary clock 1 (CLOCK_AUX + 1, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_1(17),
    /** Auxiliary clock 2 (CLOCK_AUX + 2, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_2(18),
    /** Auxiliary clock 3 (CLOCK_AUX + 3, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_3(19),
    /** Auxiliary clock 4 (CLOCK_AUX + 4, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_4(20),
    /** Auxiliary clock 5 (CLOCK_AUX + 5, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_5(21),
    /** Auxiliary clock 6 (CLOCK_AUX + 6, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_6(22),
    /** Auxiliary clock 7 (CLOCK_AUX + 7, Linux 6.17+): independent of REALTIME, steered by its own PTP daemon. */
    AUX_7(23);

    /** The first AUX clock's id (CLOCK_AUX in the kernel). */
    public static final int AUX_BASE = 16;

    private static final ClockId[] BY_ID = new ClockId[24];

    static {
        for (ClockId c : values()) {
            BY_ID[c.id] = c;
        }
    }

    private final int id;

    ClockId(int id) {
        this.id = id;
    }

    /** {@return the kernel's clockid_t value} */
    public int id() {
        return id;
    }

    /** {@return true for the AUX clocks (Linux 6.17+)} */
    public boolean isAux() {
        return id >= AUX_BASE;
    }

    /** {@return true for REALTIME, TAI and their variants: the value counts from the Unix epoch} */
    public boolean isEpochBased() {
        return this == REALTIME || this == TAI || this == REALTIME_COARSE || this == REALTIME_ALARM;
    }

    /** {@return the kernel's name, e.g. CLOCK_MONOTONIC_RAW or CLOCK_AUX+3} */
    public String kernelName() {
        return isAux() ? "CLOCK_AUX+" + (id - AUX_BASE) : "CLOCK_" + name();
    }

    /**
     * The clock with this kernel id.
     *
     * @param id the kernel's clockid_t
     * @return the fixed clock with that id
     * @throws IllegalArgumentException for an id that is no fixed Linux clock, naming the id and the valid ones
     */
    public static ClockId of(int id) {
        if (id >= 0 && id < BY_ID.length && BY_ID[id] != null) {
            return BY_ID[id];
        }
        throw new IllegalArgumentException("clock id " + id + (id < 0 ? " is a CPU-time or fd clock, not a fixed one"
                : id == 10 ? " was CLOCK_SGI_CYCLE, gone from Linux" : " is not a Linux clock (ids 0-9, 11, 16-23)"));
    }
}
