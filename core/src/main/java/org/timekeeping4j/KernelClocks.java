package org.timekeeping4j;

import org.timekeeping4j.linux.ColdClockGettime;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.serving.FastPath;

/**
 * The kernel's own paths to its clocks: clock_gettime as the vDSO serves it, the system call itself, clock_getres,
 * and a caller-owned {@link TimeSpec}. {@link Clocks#nanos} is the fast path; these are what it is checked against
 * and what serves where it cannot.
 *
 * <p><b>Paths.</b> {@link #nanos(ClockId)} calls the vDSO's clock_gettime (libc's where the vDSO has none), as
 * System.nanoTime does: the high-resolution and COARSE clocks are read in user space, the others enter the kernel.
 * {@link #syscallNanos} always enters the kernel (syscall(2)), as the vDSO itself does when it cannot trust the
 * counter: the reference against which faster paths are verified.
 *
 * <p><b>Allocation.</b> None: {@link #nanos(ClockId)} keeps its timespec on the native stack, {@link #time} writes
 * into the caller's {@link TimeSpec}.
 *
 * <p><b>Errors.</b> A clock this kernel or configuration lacks throws {@link UnsupportedOperationException} saying
 * why and what would enable it ({@link Clocks#whyUnsupported} asks without throwing). A clock behind an open file
 * descriptor (a PTP device) reads itself: {@code device.PtpClock}.
 */
public final class KernelClocks {

    private KernelClocks() {}

    /**
     * The clock's current value in nanoseconds, through the vDSO's clock_gettime (libc's where the vDSO has
     * none), which reads the clock in user space where the kernel publishes it there. Until the library's
     * clock_gettime stubs are mapped (just after the first read), MONOTONIC and REALTIME are the JDK's reads of the
     * same clocks and the others libc's clock_gettime.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @return the clock's value in ns from clock_gettime
     */
    public static long nanos(ClockId clock) {
        return read(clock);
    }

    /** {@link #nanos(ClockId)}'s body; Clocks' reads fall back to it (a class of its own: Clocks' first read loads none of its exception types). */
    private static long read(ClockId clock) {
        if (!FastPath.mapped()) {
            return kernelNanosUntilMapped(clock);
        }
        try {
            // Identity tests, as nanos has them: a clock held in a variable reaches its own clock_gettime stub
            // with its id as a constant (ClockGettimeStub's). Its id loaded and switched on measured 1.5 ns more a read
            // (DowncallCostBenchmark.kernelNanosMonotonicFromAField); a constant clock folds either way.
            if (clock == ClockId.MONOTONIC) {
                return ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_MONOTONIC);
            }
            if (clock == ClockId.REALTIME) {
                return ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_REALTIME);
            }
            if (clock == ClockId.MONOTONIC_RAW) {
                return ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_MONOTONIC_RAW);
            }
            if (clock == ClockId.BOOTTIME) {
                return ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_BOOTTIME);
            }
            if (clock == ClockId.TAI) {
                return ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_TAI);
            }
            return ClockGettimeStub.clockGettimeNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * {@link #read} until the kernel path's stubs are mapped (on the discovery thread), and where they never
     * are: MONOTONIC and REALTIME by the JDK, the others by libc's clock_gettime, each bound at the cost of a bare
     * program's first call.
     */
    private static long kernelNanosUntilMapped(ClockId clock) {
        if (FastPath.PLATFORM != null) {
            throw new UnsupportedOperationException(FastPath.PLATFORM);
        }
        if (clock == ClockId.MONOTONIC) {
            return System.nanoTime();
        }
        if (clock == ClockId.REALTIME) {
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
        try {
            return ColdClockGettime.nanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * The clock's current value in nanoseconds through the clock_gettime system call itself, bypassing
     * the vDSO (the forced-syscall path, about 10x slower).
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @return the clock's value in ns from the system call
     */
    public static long syscallNanos(ClockId clock) {
        try {
            return LinuxTime.syscallClockGettimeNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * Fills {@code into} with the clock's current (seconds, nanoseconds) from clock_gettime, allocating
     * nothing.
     *
     * @return {@code into}, for chaining
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @param into  the holder to fill
     */
    public static TimeSpec time(ClockId clock, TimeSpec into) {
        try {
            LinuxTime.clockGettime(clock.id(), into.segment());
            return into;
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * The clock's resolution as clock_getres(2) reports it: 1 ns for the high-resolution clocks, one
     * tick (e.g. 4 ms at HZ=250) for the COARSE ones.
     *
     * @throws UnsupportedOperationException if this kernel does not know the clock
     * @param clock the clock
     * @return the resolution in ns
     */
    public static long resolutionNanos(ClockId clock) {
        try {
            return LinuxTime.clockGetresNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    static String reason(ClockId clock, int errno) {
        String name = clock.kernelName();
        if (clock.isAux()) {
            int n = clock.id() - ClockId.AUX_BASE;
            // The vDSO answers clock_getres for every AUX id on 6.17+ whether or not the kernel was built with
            // CONFIG_POSIX_AUX_CLOCKS: the sysfs directory is what says the clocks exist.
            return java.nio.file.Files.isDirectory(java.nio.file.Path.of("/sys/kernel/time/aux_clocks"))
                    ? name + " is not enabled: write 1 to /sys/kernel/time/aux_clocks/" + n
                            + "/aux_clock_enable (needs CAP_SYS_TIME)"
                    : name + " does not exist in this kernel: AUX clocks need Linux 6.17+ with CONFIG_POSIX_AUX_CLOCKS"
                            + " (clock_gettime answers " + Errno.describe(errno) + ")";
        }
        if (clock == ClockId.REALTIME_ALARM || clock == ClockId.BOOTTIME_ALARM) {
            return name + " needs an alarm-capable RTC and this system registers none (clock_gettime answers "
                    + Errno.describe(errno) + ")";
        }
        return "the kernel refuses " + name + ": clock_gettime answers " + Errno.describe(errno);
    }

    static UnsupportedOperationException unsupported(ClockId clock, ErrnoException e) {
        UnsupportedOperationException u = new UnsupportedOperationException(reason(clock, e.errno()));
        u.initCause(e);
        return u;
    }
}
