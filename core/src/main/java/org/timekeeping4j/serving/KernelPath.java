package org.timekeeping4j.serving;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.ColdClockGettime;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The kernel's clock_gettime, the two ways this library calls it: through the kernel path's machine code (the
 * vDSO's clock_gettime behind a stack-buffer stub, {@link ClockGettimeStub}) once a mode is chosen, and before that,
 * or where no stub maps, the JDK's reads of MONOTONIC and REALTIME and libc's clock_gettime for the rest
 * ({@link ColdClockGettime}). Also the one wording of a refused clock. Which of the two serves a caller is its
 * backend's to say ({@link Backend#kernelNanos}); nothing here tests the mode.
 */
public final class KernelPath {

    private KernelPath() {}

    /**
     * clock_gettime through the kernel path's stubs: only once they are mapped (a backend that reads them is
     * published only after they are).
     *
     * @throws UnsupportedOperationException where the kernel refuses the clock, saying why
     */
    static long mapped(ClockId clock) {
        try {
            // Identity tests, not a switch: a clock held in a variable reaches its own clock_gettime stub with its id
            // as a constant (ClockGettimeStub's). Its id loaded and switched on measured 1.5 ns more a read
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
     * clock_gettime before the stubs are mapped, and where they never are: MONOTONIC and REALTIME by the JDK (its
     * System.nanoTime and Instant.now are clock_gettime of the same clocks), the others by libc's clock_gettime,
     * each bound at the cost of a bare program's first call.
     *
     * @throws UnsupportedOperationException on another platform, where native access is denied, or where the kernel
     *                                       refuses the clock, saying why
     */
    static long cold(ClockId clock) {
        if (FastPath.PLATFORM != null) {
            FastPath.start();
            throw new UnsupportedOperationException(FastPath.PLATFORM);
        }
        if (clock == ClockId.MONOTONIC) {
            FastPath.start();
            return System.nanoTime();
        }
        if (clock == ClockId.REALTIME) {
            FastPath.start();
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
        try {
            return ColdClockGettime.nanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        } finally {
            FastPath.start(); // after the read's FFM start-up, not beside it (FastPath.start)
        }
    }

    /**
     * Why the kernel refuses a clock, with what would enable it.
     *
     * @param clock the clock
     * @param errno what clock_gettime answered
     * @return one line
     */
    public static String reason(ClockId clock, int errno) {
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

    /**
     * A refused clock as the exception every read throws.
     *
     * @param clock the clock
     * @param e     the kernel's refusal
     * @return an exception saying why, caused by {@code e}
     */
    public static UnsupportedOperationException unsupported(ClockId clock, ErrnoException e) {
        UnsupportedOperationException u = new UnsupportedOperationException(reason(clock, e.errno()));
        u.initCause(e);
        return u;
    }
}
