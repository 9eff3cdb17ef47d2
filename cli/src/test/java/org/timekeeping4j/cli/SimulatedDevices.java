package org.timekeeping4j.cli;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.testing.PtpClockTime;
import org.timekeeping4j.linux.Errno;

/**
 * A kernel with one PTP clock ({@code /sim/ptp0}, 37 us ahead of REALTIME, precise cross timestamps), one whose time
 * is this machine's MONOTONIC_RAW ({@code /sim/ptp1}, for tk4j phc --fast) and one PPS source ({@code /sim/pps0}, an
 * event a second), answering with the uapi structs' offsets as literal numbers
 * (linux/ptp_clock.h, linux/pps.h). Only what phc and pps ask for.
 */
final class SimulatedDevices implements DeviceSyscalls {

    static final String PTP = "/sim/ptp0";
    /** A PHC that is this machine's real MONOTONIC_RAW, 37 us ahead and 25 ppm fast, for tk4j phc --fast. */
    static final String RAW_PTP = "/sim/ptp1";
    static final String PPS = "/sim/pps0";
    static final long PHC_AHEAD_NANOS = 37_000;

    private static final long PTP_CLOCK_GETCAPS = 0x80503D01L;
    private static final long PTP_SYS_OFFSET_PRECISE = 0xC0403D08L;
    private static final long PPS_GETCAP = 0x800870A3L;
    private static final long PPS_FETCH = 0xC00870A4L;
    private static final int PTP_FD = 40;
    private static final int RAW_PTP_FD = 42;
    private static final long RAW_0 = raw();
    private static final int PPS_FD = 41;

    private long now = 1_700_000_000_000_000_000L;
    private long ppsSequence;

    @Override
    public int open(String path, int flags) {
        return switch (path) {
            case PTP -> PTP_FD;
            case RAW_PTP -> RAW_PTP_FD;
            case PPS -> PPS_FD;
            default -> -Errno.ENOENT;
        };
    }

    @Override
    public int close(int fd) {
        return 0;
    }

    @Override
    public int clockGettime(int clockId, MemorySegment ts) {
        if (clockId == (~RAW_PTP_FD << 3 | 3)) { // the dynamic id of RAW_PTP's descriptor
            long nanos = rawPhc(raw());
            ts.set(JAVA_LONG, 0, Math.floorDiv(nanos, 1_000_000_000L));
            ts.set(JAVA_LONG, 8, Math.floorMod(nanos, 1_000_000_000L));
            return 0;
        }
        return -Errno.EINVAL; // phc's REALTIME offset uses the precise cross timestamp
    }

    /** The real MONOTONIC_RAW. */
    static long raw() {
        return org.timekeeping4j.KernelClocks.nanos(org.timekeeping4j.ClockId.MONOTONIC_RAW);
    }

    /** RAW_PTP's time at MONOTONIC_RAW {@code raw}. */
    static long rawPhc(long raw) {
        return raw + 37_000 + Math.floorDiv((raw - RAW_0) * 25_000, 1_000_000_000L);
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment a) {
        now += 1_000;
        if (fd == PTP_FD && request == PTP_CLOCK_GETCAPS) {
            // max_adj, n_alarm, n_ext_ts, n_per_out, pps, n_pins, cross_timestamping, adjust_phase, max_phase_adj
            int[] caps = {500_000, 0, 2, 1, 1, 4, 1, 0, 0};
            for (int i = 0; i < caps.length; i++) {
                a.set(JAVA_INT, 4L * i, caps[i]);
            }
            return 0;
        }
        if (fd == RAW_PTP_FD && request == PTP_CLOCK_GETCAPS) {
            a.set(JAVA_INT, 0, 500_000); // max_adj
            a.set(JAVA_INT, 24, 1);      // cross_timestamping
            return 0;
        }
        if (fd == RAW_PTP_FD && request == PTP_SYS_OFFSET_PRECISE) {
            long raw = raw();
            PtpClockTime.write(a, 0, rawPhc(raw));
            PtpClockTime.write(a, 16, now);
            PtpClockTime.write(a, 32, raw);
            return 0;
        }
        if (fd == PTP_FD && request == PTP_SYS_OFFSET_PRECISE) {
            PtpClockTime.write(a, 0, now + PHC_AHEAD_NANOS); // device
            PtpClockTime.write(a, 16, now);                  // sys_realtime
            PtpClockTime.write(a, 32, now);                  // sys_monoraw
            return 0;
        }
        if (fd == PPS_FD && request == PPS_GETCAP) {
            a.set(JAVA_INT, 0, 0x1133);
            return 0;
        }
        if (fd == PPS_FD && request == PPS_FETCH) {
            ppsSequence++;
            a.set(JAVA_INT, 0, (int) ppsSequence);      // assert_sequence
            a.set(JAVA_INT, 4, 0);                      // clear_sequence
            a.set(JAVA_LONG, 8, 1_700_000_000L + ppsSequence); // assert_tu.sec
            a.set(JAVA_INT, 16, 250);                   // assert_tu.nsec
            a.set(JAVA_LONG, 24, 0);
            a.set(JAVA_INT, 32, 0);
            a.set(JAVA_INT, 40, 0x1);                   // current_mode
            return 0;
        }
        return -Errno.ENOTTY;
    }
}
