package org.timekeeping4j;

import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.serving.KernelPath;

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
     * none), which reads the clock in user space where the kernel publishes it there. Until the first discovery
     * has chosen how this process serves its clocks (tens of milliseconds after the first read), and where the
     * library's clock_gettime stubs cannot be mapped, MONOTONIC and REALTIME are the JDK's reads of the same clocks
     * and the others libc's clock_gettime.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @return the clock's value in ns from clock_gettime
     */
    public static long nanos(ClockId clock) {
        return FastPath.kernelNanos(clock);
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
            throw KernelPath.unsupported(clock, e);
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
            throw KernelPath.unsupported(clock, e);
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
            throw KernelPath.unsupported(clock, e);
        }
    }
}
