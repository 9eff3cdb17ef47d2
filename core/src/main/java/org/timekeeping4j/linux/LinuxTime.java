package org.timekeeping4j.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Idiomatic layer over {@link LibC}: the clock and time-status calls as plain Java methods that take
 * and return primitives, check every return code, and throw {@link ErrnoException} with the errno.
 *
 * <p><b>Allocation:</b> the read methods allocate nothing. The kernel path's nanosecond read keeps its timespec on
 * the native stack where the stub is mapped ({@code machine.ClockGettimeStub.clockGettimeNanos}). Each thread owns one scratch segment
 * (a timespec and the errno capture buffer), created on the thread's first call and freed by the
 * garbage collector with the thread ({@link Arena#ofAuto()}).
 */
public final class LinuxTime {

    private static final long TIMESPEC_SIZE = LibC.Timespec.LAYOUT.byteSize();
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** Per-thread scratch: [0, 16) timespec, [16, ...) errno capture state. */
    private static final ThreadLocal<MemorySegment> SCRATCH = ThreadLocal.withInitial(
            () -> Arena.ofAuto().allocate(TIMESPEC_SIZE + LibC.CAPTURE_STATE.byteSize(), 16));

    private LinuxTime() {}

    private static MemorySegment scratch() {
        Platform.requireSupported();
        return SCRATCH.get();
    }

    private static MemorySegment captureState(MemorySegment scratch) {
        return scratch.asSlice(TIMESPEC_SIZE, LibC.CAPTURE_STATE.byteSize());
    }

    /** Nanoseconds in a timespec; exact until the year 2262 for epoch clocks. */
    public static long toNanos(MemorySegment timespec) {
        return LibC.Timespec.sec(timespec) * NANOS_PER_SECOND + LibC.Timespec.nsec(timespec);
    }

    /**
     * clock_gettime(clockId) in nanoseconds through this thread's buffer, through the vDSO's clock_gettime
     * (libc's where the vDSO has none). The kernel path reads through the stack-buffer stub first
     * ({@code machine.ClockGettimeStub.clockGettimeNanos}) and comes here where the stub is not mapped or fails.
     *
     * @throws ErrnoException when the kernel refuses the clock id (EINVAL)
     */
    public static long clockGettimeNanosBuffered(int clockId) {
        MemorySegment ts = scratch();
        clockGettime(clockId, ts);
        return toNanos(ts);
    }

    /**
     * clock_gettime(clockId) into a caller-owned 16-byte timespec segment.
     *
     * @throws ErrnoException when the kernel refuses the clock id
     */
    public static void clockGettime(int clockId, MemorySegment timespec) {
        int rc;
        try {
            rc = (int) ClockGettime.timespec().invokeExact(clockId, timespec);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw new ErrnoException("clock_gettime(" + clockId + ")", clockGettimeErrno(clockId));
        }
    }

    /** 0 when clock_gettime(clockId) succeeds now, else the errno it fails with. */
    public static int clockGettimeErrno(int clockId) {
        MemorySegment scratch = scratch();
        MemorySegment state = captureState(scratch);
        try {
            int rc = (int) LibC.ClockGettimeErrno.HANDLE.invokeExact(state, clockId, scratch);
            return rc == 0 ? 0 : LibC.errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * clock_gettime through syscall(2), bypassing the vDSO: the kernel's own read, what the vDSO falls
     * back to.
     *
     * @throws ErrnoException when the kernel refuses the clock id
     * @throws UnsupportedOperationException where the syscall's number on this architecture is not known
     */
    public static long syscallClockGettimeNanos(int clockId) {
        return syscallClockGettimeNanos(LibC.SYS_CLOCK_GETTIME, clockId);
    }

    /** {@link #syscallClockGettimeNanos(int)} through syscall number {@code number} (-1: none known). */
    static long syscallClockGettimeNanos(long number, int clockId) {
        MemorySegment ts = scratch();
        if (number < 0) {
            throw new UnsupportedOperationException(noSyscallNumber());
        }
        long rc;
        try {
            rc = (long) LibC.SyscallClockGettime.HANDLE.invokeExact(number, (long) clockId, ts);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw new ErrnoException("syscall(SYS_clock_gettime, " + clockId + ")",
                    syscallClockGettimeErrno(number, clockId));
        }
        return toNanos(ts);
    }

    /**
     * 0 when syscall(SYS_clock_gettime, clockId) succeeds now, else its errno; ENOSYS, without a call, where
     * the syscall's number on this architecture is not known (a guessed number would be another syscall).
     */
    public static int syscallClockGettimeErrno(int clockId) {
        return syscallClockGettimeErrno(LibC.SYS_CLOCK_GETTIME, clockId);
    }

    /** {@link #syscallClockGettimeErrno(int)} through syscall number {@code number} (-1: none known). */
    static int syscallClockGettimeErrno(long number, int clockId) {
        MemorySegment scratch = scratch();
        if (number < 0) {
            return Errno.ENOSYS;
        }
        MemorySegment state = captureState(scratch);
        try {
            long rc = (long) LibC.SyscallClockGettimeErrno.HANDLE.invokeExact(state, number, (long) clockId, scratch);
            return rc == 0 ? 0 : LibC.errno(state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Why the raw clock_gettime syscall is not made here (one line). */
    static String noSyscallNumber() {
        return "syscall(SYS_clock_gettime) is not made on " + Platform.ARCH + ": timekeeping4j knows its number"
                + " only where it reads the counter (arch.Arch); clock_gettime(3) reads the same clocks";
    }

    /**
     * clock_getres(clockId) in nanoseconds.
     *
     * @throws ErrnoException when the kernel refuses the clock id
     */
    public static long clockGetresNanos(int clockId) {
        MemorySegment scratch = scratch();
        MemorySegment state = captureState(scratch);
        int rc;
        try {
            rc = (int) LibC.ClockGetresErrno.HANDLE.invokeExact(state, clockId, scratch);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw new ErrnoException("clock_getres(" + clockId + ")", LibC.errno(state));
        }
        return toNanos(scratch);
    }

    /** 0 when clock_getres(clockId) succeeds, else its errno. */
    public static int clockGetresErrno(int clockId) {
        try {
            clockGetresNanos(clockId);
            return 0;
        } catch (ErrnoException e) {
            return e.errno();
        }
    }

    /**
     * clock_adjtime(clockId, &timex) with modes = 0: reads the kernel's NTP state without changing it
     * (no privilege needed, though seccomp filters and systemd's ProtectClock= refuse it with EPERM).
     *
     * @return the call's return value (TIME_OK .. TIME_ERROR) and the struct's fields
     * @throws ErrnoException when the kernel refuses
     */
    public static TimexReading clockAdjtimeRead(int clockId) {
        Platform.requireSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timex = arena.allocate(LibC.Timex.SIZE, 8); // zeroed: modes = 0 means read only
            MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
            int rc = (int) LibC.ClockAdjtimeErrno.HANDLE.invokeExact(state, clockId, timex);
            if (rc < 0) {
                throw new ErrnoException("clock_adjtime(" + clockId + ", modes=0)", LibC.errno(state));
            }
            return new TimexReading(rc,
                    LibC.Timex.getInt(timex, LibC.Timex.STATUS),
                    LibC.Timex.getLong(timex, LibC.Timex.OFFSET),
                    LibC.Timex.getLong(timex, LibC.Timex.FREQ),
                    LibC.Timex.getLong(timex, LibC.Timex.MAXERROR),
                    LibC.Timex.getLong(timex, LibC.Timex.ESTERROR),
                    LibC.Timex.getLong(timex, LibC.Timex.CONSTANT),
                    LibC.Timex.getLong(timex, LibC.Timex.PRECISION),
                    LibC.Timex.getLong(timex, LibC.Timex.TOLERANCE),
                    LibC.Timex.getLong(timex, LibC.Timex.TICK),
                    LibC.Timex.getInt(timex, LibC.Timex.TAI));
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** What uname(2) says of the running kernel. */
    public record Uname(String sysname, String nodename, String release, String version, String machine) {}

    /** uname(2). */
    public static Uname uname() {
        Platform.requireSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment uts = arena.allocate(LibC.Utsname.SIZE);
            MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
            int rc = (int) LibC.UnameErrno.HANDLE.invokeExact(state, uts);
            if (rc != 0) {
                throw new ErrnoException("uname", LibC.errno(state));
            }
            return new Uname(LibC.Utsname.field(uts, LibC.Utsname.SYSNAME),
                    LibC.Utsname.field(uts, LibC.Utsname.NODENAME),
                    LibC.Utsname.field(uts, LibC.Utsname.RELEASE),
                    LibC.Utsname.field(uts, LibC.Utsname.VERSION),
                    LibC.Utsname.field(uts, LibC.Utsname.MACHINE));
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Rethrows what a downcall threw: unchecked as is, anything checked wrapped. Use as {@code throw rethrow(t)}. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected checked exception from a downcall", t);
    }
}
