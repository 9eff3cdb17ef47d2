package org.timekeeping4j.tracking;

import org.timekeeping4j.linux.TimexReading;

/**
 * What a time daemon is doing to the kernel clock, as adjtimex reports it, for the tracker: the steered
 * rate of CLOCK_MONOTONIC against CLOCK_MONOTONIC_RAW that the kernel's NTP code is applying now (frequency,
 * tick length, and the PLL's phase slew), so that the tracker can feed a change forward at its next update
 * instead of discovering it, seconds later, in the slope of its samples; and when the last change happened, so
 * that it samples fast while the kernel's rate is moving.
 *
 * <p>The PLL term follows kernel/time/ntp.c: each second the kernel slews {@code time_offset >> (SHIFT_PLL +
 * time_constant)} of the remaining offset (SHIFT_PLL = 2), i.e. that many ns per second on top of the
 * frequency. The tick term: a tick of {@code tick} us where USER_HZ = 100 expects 10000 us runs every clock
 * {@code (tick - 10000) * 10^5} ppb fast. These are the kernel's own rules; what the tracker then measures
 * corrects what this model misses (rounding, FLL mode).
 */
final class SteeringWatch {

    /** How long after a change the tracker keeps its shortest interval. */
    static final long SETTLE_NANOS = 2_000_000_000L;
    private static final int STA_PLL = 0x0001;
    private static final int STA_NANO = 0x2000;
    private static final int SHIFT_PLL = 2;

    private boolean known;
    private long ratePpb;
    private long changedAt = Long.MIN_VALUE / 2;
    private String lastChange = "none seen";
    private boolean unavailable;

    /**
     * Reads adjtimex from {@code kernel} and returns how much the kernel's steered rate changed since the last call,
     * in ppb (0 on the first call, when nothing changed, or where adjtimex is refused).
     */
    long poll(long nowNanos, TrackingPolicy.Environment kernel) {
        if (unavailable) {
            return 0;
        }
        TimexReading t = kernel.adjtimex();
        if (t == null) {
            unavailable = true; // seccomp, ProtectClock=: the tracker measures the rate from its samples alone
            return 0;
        }
        long rate = ratePpb(t);
        long delta = known ? rate - ratePpb : 0;
        if (known && delta != 0) {
            changedAt = nowNanos;
            lastChange = String.format("%+d ppb (adjtimex freq %d ppm<<16, tick %d us, PLL offset %d)", delta,
                    t.freq(), t.tick(), t.offset());
        }
        known = true;
        ratePpb = rate;
        return delta;
    }

    /** The steered rate adjtimex describes: frequency + tick + PLL slew, in ppb against the raw clock. */
    static long ratePpb(TimexReading t) {
        long freqPpb = Math.round(t.freq() / 65536.0 * 1000);
        long tickPpb = (t.tick() - 10_000) * 100_000;
        long pllPpb = 0;
        if ((t.status() & STA_PLL) != 0 && t.offset() != 0) {
            long offsetNanos = (t.status() & STA_NANO) != 0 ? t.offset() : t.offset() * 1000;
            long constant = Math.max(0, Math.min(10, t.constant()));
            pllPpb = offsetNanos >> (SHIFT_PLL + constant);
        }
        return freqPpb + tickPpb + pllPpb;
    }

    /** True while the kernel's rate changed less than {@link #SETTLE_NANOS} ago. */
    boolean settling(long nowNanos) {
        return nowNanos - changedAt < SETTLE_NANOS;
    }

    /** One line on the last change seen, for status reports. */
    String lastChange() {
        return unavailable ? "adjtimex refused: rate changes are seen in the samples only" : lastChange;
    }
}
