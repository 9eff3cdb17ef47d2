package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.linux.DeviceSyscalls;
import org.timekeeping4j.testing.PtpClockTime;
import org.timekeeping4j.linux.Errno;

/**
 * A kernel with one PTP clock whose time is a known function of this machine's real CLOCK_MONOTONIC_RAW: what no
 * driver here offers (this host has no PHC), so that a test knows the PHC's true time at every RAW value a read
 * brackets. The PHC runs at {@code ratePpb} against RAW from an anchor; {@link #step} and {@link #setRate} move it
 * as ptp4l's clock_adjtime would, from the RAW value of the call on. It answers PTP_CLOCK_GETCAPS, clock_gettime
 * on its dynamic id and, in {@link Mode#PRECISE}, PTP_SYS_OFFSET_PRECISE (device and sys_monoraw at one RAW value);
 * in {@link Mode#TRIPLETS} it refuses the offset ioctls (EOPNOTSUPP), as netdevsim's mock PHC refuses EXTENDED, so
 * that cross timestamps are clock_gettime triplets. Struct offsets are literal numbers from linux/ptp_clock.h.
 */
public final class RawPhcKernel implements DeviceSyscalls {

    /** How the PHC answers cross timestamps. */
    public enum Mode { PRECISE, TRIPLETS }

    /** The PHC's path. */
    public static final String PATH = "/raw/ptp0";
    private static final long GETCAPS = 0x80503D01L;
    private static final long PRECISE = 0xC0403D08L;
    private static final int FIRST_FD = 50;

    private final Mode mode;
    private int nextFd = FIRST_FD;
    private volatile boolean gone;
    // The PHC's line: phc(raw) = phc0 + (raw - raw0) + (raw - raw0) * ratePpb / 1e9.
    private long raw0;
    private long phc0;
    private long ratePpb;

    /**
     * A PHC {@code aheadOfRawNanos} ahead of MONOTONIC_RAW now, running {@code ratePpb} fast against it.
     *
     * @param mode            how cross timestamps are answered
     * @param aheadOfRawNanos the PHC minus RAW now, ns
     * @param ratePpb         the PHC's rate against RAW, ppb
     */
    public RawPhcKernel(Mode mode, long aheadOfRawNanos, long ratePpb) {
        this.mode = mode;
        this.raw0 = raw();
        this.phc0 = raw0 + aheadOfRawNanos;
        this.ratePpb = ratePpb;
    }

    /** The real MONOTONIC_RAW, by the kernel. */
    public static long raw() {
        return KernelClocks.nanos(ClockId.MONOTONIC_RAW);
    }

    /** {@return the PHC's time at MONOTONIC_RAW {@code raw}} */
    public synchronized long phcAt(long raw) {
        long d = raw - raw0;
        return phc0 + d + Math.floorDiv(d * ratePpb, 1_000_000_000L);
    }

    /** Steps the PHC by {@code deltaNanos} now (clock_adjtime ADJ_SETOFFSET on the PHC). */
    public synchronized void step(long deltaNanos) {
        long now = raw();
        phc0 = phcAt(now) + deltaNanos;
        raw0 = now;
    }

    /** Sets the PHC's rate against RAW from now on (clock_adjtime ADJ_FREQUENCY on the PHC). */
    public synchronized void setRate(long ppb) {
        long now = raw();
        phc0 = phcAt(now);
        raw0 = now;
        ratePpb = ppb;
    }

    /** From now on every call on the device fails with ENODEV, as after the device's removal. */
    public void remove() {
        gone = true;
    }

    @Override
    public int open(String path, int flags) {
        return path.equals(PATH) ? nextFd++ : -Errno.ENOENT;
    }

    @Override
    public int close(int fd) {
        return 0;
    }

    @Override
    public int clockGettime(int clockId, MemorySegment ts) {
        long nanos;
        if (clockId < 0) {
            if (gone) {
                return -Errno.ENODEV;
            }
            nanos = phcAt(raw());
        } else {
            nanos = KernelClocks.nanos(ClockId.of(clockId));
        }
        ts.set(JAVA_LONG, 0, Math.floorDiv(nanos, 1_000_000_000L));
        ts.set(JAVA_LONG, 8, Math.floorMod(nanos, 1_000_000_000L));
        return 0;
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment a) {
        if (gone) {
            return -Errno.ENODEV;
        }
        if (request == GETCAPS) {
            // max_adj, n_alarm, n_ext_ts, n_per_out, pps, n_pins, cross_timestamping, adjust_phase, max_phase_adj
            int[] caps = {500_000, 0, 0, 0, 0, 0, mode == Mode.PRECISE ? 1 : 0, 0, 0};
            for (int i = 0; i < caps.length; i++) {
                a.set(JAVA_INT, 4L * i, caps[i]);
            }
            return 0;
        }
        if (request == PRECISE && mode == Mode.PRECISE) {
            long raw = raw();
            PtpClockTime.write(a, 0, phcAt(raw));                                       // device
            PtpClockTime.write(a, 16, KernelClocks.nanos(ClockId.REALTIME));            // sys_realtime
            PtpClockTime.write(a, 32, raw);                                             // sys_monoraw
            return 0;
        }
        return -Errno.EOPNOTSUPP;
    }
}
