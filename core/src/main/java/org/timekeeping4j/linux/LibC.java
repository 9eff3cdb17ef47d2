package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Raw layer: downcall handles and struct layouts for the libc functions timekeeping4j calls.
 *
 * <p>One nested class per C struct, and one per handle (bound on first use). Handles whose name ends in
 * {@code Errno} take a leading
 * {@code MemorySegment} of {@link #CAPTURE_STATE} into which the linker copies {@code errno}
 * right after the call (Linker.Option.captureCallState), before anything else in the JVM can
 * overwrite it. Hot-path handles are critical downcalls (Linker.Option.critical(false)): no
 * thread-state transition, so they must not block or call back; clock_gettime does neither.
 * A hot-path call that fails is repeated through its {@code Errno} twin to learn why, which is
 * correct because every failure these functions report for a given argument is deterministic
 * (EINVAL, EFAULT).
 *
 * <p>Everything here assumes LP64 Linux with the generic constants ({@link Platform#GENERIC_ABI}). On any
 * other platform the handles are null and {@link Platform#requireSupported()} must be called first; the
 * idiomatic layer ({@link LinuxTime}) does that.
 */
public final class LibC {

    /**
     * The clock_gettime syscall number on this architecture ({@link #sysClockGettime}), or -1 where
     * timekeeping4j does not know it: {@link SyscallClockGettime} must not be called then.
     */
    public static final long SYS_CLOCK_GETTIME = sysClockGettime(Platform.ARCH);

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    /** Layout of the errno capture buffer (the linker's captureStateLayout). */
    public static final StructLayout CAPTURE_STATE = Linker.Option.captureStateLayout();
    /** Where errno sits in {@link #CAPTURE_STATE}: found by name, without a layout path or a VarHandle (cold cost). */
    private static final long ERRNO_OFFSET = errnoOffset();

    /** Captures errno right after the call (see the class comment). */
    static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");

    /** int (int, void *): clock_gettime, clock_getres, clock_adjtime. One instance: the JDK caches per descriptor. */
    private static final FunctionDescriptor INT_INT_ADDRESS = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);

    // The handles, one holder class each: a class's static finals are what let the JIT inline a downcall, and a
    // holder binds its handle on first use only. Each distinct descriptor and option set costs a cold JVM
    // milliseconds of LambdaForm spinning, so exact mode's discovery binds only what it calls (the functions of
    // SIX_LONGS, and ClockGettimeErrno where a clock fails); the handles of the same descriptor and options share
    // the JDK's invoker (ClockGettimeErrno, ClockGetresErrno, ClockAdjtimeErrno; those of SelfCalls).

    /** int clock_gettime(clockid_t, struct timespec *): man 2 clock_gettime. Critical; via the vDSO where it has the clock. */
    public static final class ClockGettimeCritical {
        public static final MethodHandle HANDLE = handle("clock_gettime", INT_INT_ADDRESS, Linker.Option.critical(false));

        private ClockGettimeCritical() {}
    }

    /** clock_gettime with errno captured: for the slow path after a clock_gettime failed. */
    public static final class ClockGettimeErrno {
        public static final MethodHandle HANDLE = handle("clock_gettime", INT_INT_ADDRESS, ERRNO_OPTION);

        private ClockGettimeErrno() {}
    }

    /** int clock_getres(clockid_t, struct timespec *): man 2 clock_getres. */
    public static final class ClockGetresErrno {
        public static final MethodHandle HANDLE = handle("clock_getres", INT_INT_ADDRESS, ERRNO_OPTION);

        private ClockGetresErrno() {}
    }

    /**
     * long syscall(long number, ...): man 2 syscall, used as syscall(SYS_clock_gettime, clockid, ts),
     * the path that always enters the kernel (what the vDSO falls back to). The clock id is passed as
     * a variadic long: the kernel takes the low 32 bits as clockid_t.
     */
    public static final class SyscallClockGettime {
        public static final MethodHandle HANDLE = handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS),
                Linker.Option.firstVariadicArg(1), Linker.Option.critical(false));

        private SyscallClockGettime() {}
    }

    /** The syscall path with errno captured. */
    public static final class SyscallClockGettimeErrno {
        public static final MethodHandle HANDLE = handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS),
                Linker.Option.firstVariadicArg(1), ERRNO_OPTION);

        private SyscallClockGettimeErrno() {}
    }

    /** int clock_adjtime(clockid_t, struct timex *): man 2 clock_adjtime (glibc 2.14+). Only ever called with modes = 0. */
    public static final class ClockAdjtimeErrno {
        public static final MethodHandle HANDLE = handle("clock_adjtime", INT_INT_ADDRESS, ERRNO_OPTION);

        private ClockAdjtimeErrno() {}
    }

    /** int uname(struct utsname *): man 2 uname. */
    public static final class UnameErrno {
        public static final MethodHandle HANDLE = handle("uname", FunctionDescriptor.of(JAVA_INT, ADDRESS), ERRNO_OPTION);

        private UnameErrno() {}
    }

    /**
     * long (long, long, long, long, long, long), errno captured: the one descriptor of the calls the bindings make
     * for themselves (mmap, mprotect and munmap for the stubs and the VMClock page; pipe2, write and close for
     * {@link PageProbe}). A cold JVM spins a downcall stub and its LambdaForms per descriptor and option set, 4 to
     * 6 ms each here; one shared descriptor pays that once. Not syscall(2): the linker spins a variadic call's
     * handle at twice that (12 ms), and a non-variadic call to a variadic function leaves AL undefined, which the
     * x86_64 ABI has the callee trust.
     *
     * <p>Exact at the ABI level on x86_64 and aarch64, where all six arguments travel in registers: an {@code int}
     * parameter is read from its register's low 32 bits, the arguments a function does not declare are registers
     * it never reads, and a function returning {@code int} leaves the upper half of the result register undefined,
     * so such a result is narrowed ({@link #callInt}).
     */
    private static final FunctionDescriptor SIX_LONGS = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);

    /**
     * The functions of {@link #SIX_LONGS}, all bound when one is first used: one holder class, where one each (the
     * rule above) would cost a cold discovery a class load per function (a few hundred microseconds each) for what
     * is, after the first, a bind of the same linked stub.
     */
    public static final class SelfCalls {
        /** void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset): man 2 mmap. */
        public static final MethodHandle MMAP;

        static {
            FunctionDescriptor sixLongs = SIX_LONGS; // LibC initialised before the lock, not under it
            synchronized (Platform.FIRST_LINK) { // one FFM start-up at a time: see there
                MMAP = handle("mmap", sixLongs, ERRNO_OPTION);
            }
        }

        /** int mprotect(void *addr, size_t len, int prot): man 2 mprotect. */
        public static final MethodHandle MPROTECT = handle("mprotect", SIX_LONGS, ERRNO_OPTION);
        /** int munmap(void *addr, size_t length): man 2 munmap. */
        public static final MethodHandle MUNMAP = handle("munmap", SIX_LONGS, ERRNO_OPTION);
        /** int pipe2(int pipefd[2], int flags): man 2 pipe2. */
        public static final MethodHandle PIPE2 = handle("pipe2", SIX_LONGS, ERRNO_OPTION);
        /** ssize_t write(int fd, const void *buf, size_t count): man 2 write. */
        public static final MethodHandle WRITE = handle("write", SIX_LONGS, ERRNO_OPTION);
        /** int close(int fd): man 2 close. */
        public static final MethodHandle CLOSE = handle("close", SIX_LONGS, ERRNO_OPTION);
        /** int prctl(int op, ...): man 2 prctl; PR_SET_TIMERSLACK for a sampler that must wake on time. */
        public static final MethodHandle PRCTL = handle("prctl", SIX_LONGS, ERRNO_OPTION);
        /**
         * int clock_gettime(clockid_t, struct timespec *): for a discovery's measurement of its own CPU time
         * ({@code vdso.DiscoveryPhases}), which then links no descriptor of its own.
         */
        public static final MethodHandle CLOCK_GETTIME = handle("clock_gettime", SIX_LONGS, ERRNO_OPTION);

        private SelfCalls() {}
    }

    /**
     * Links the first handles a discovery calls ({@link SelfCalls}: the stubs are mapped first). In a cold JVM that
     * is the JDK's FFM start-up, about half of what a discovery costs.
     *
     * @return null where the bindings can call libc, else why not (one line, with what to do)
     */
    public static String bootstrap() {
        if (Platform.UNSUPPORTED_REASON != null) {
            return Platform.UNSUPPORTED_REASON; // not Linux, another ABI, or native access denied
        }
        try {
            return SelfCalls.MMAP == null ? "libc's mmap cannot be bound" : null;
        } catch (LinkageError e) { // no such symbol (a libc that is neither glibc nor musl)
            return "libc's mmap cannot be bound: " + e;
        }
    }

    /**
     * Calls one of the functions of {@link #SIX_LONGS} (a handle of {@link SelfCalls}) with
     * errno captured into {@code capture}; pass 0 for the arguments it does not declare.
     *
     * @param function the function's handle
     * @param capture  a {@link #CAPTURE_STATE} segment
     * @param a1       first argument
     * @param a2       second argument
     * @param a3       third argument
     * @param a4       fourth argument
     * @param a5       fifth argument
     * @param a6       sixth argument
     * @return the result of a function that returns a pointer or a {@code long}-sized integer
     */
    public static long call(MethodHandle function, MemorySegment capture, long a1, long a2, long a3, long a4,
            long a5, long a6) {
        try {
            return (long) function.invokeExact(capture, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /**
     * {@link #call} for a function that returns {@code int} and takes at most three arguments: the result
     * register's low 32 bits.
     *
     * @param function the function's handle
     * @param capture  a {@link #CAPTURE_STATE} segment
     * @param a1       first argument
     * @param a2       second argument (0 where it takes fewer)
     * @param a3       third argument (0 where it takes fewer)
     * @return the result
     */
    public static int callInt(MethodHandle function, MemorySegment capture, long a1, long a2, long a3) {
        return (int) call(function, capture, a1, a2, a3, 0, 0, 0);
    }

    /** prctl's PR_SET_TIMERSLACK (include/uapi/linux/prctl.h). */
    public static final int PR_SET_TIMERSLACK = 29;

    /**
     * Sets the calling thread's timer slack (how late the kernel may end its sleeps to batch wake-ups; 50 us by
     * default), for a thread that must wake on time. Best effort: false where prctl refuses.
     *
     * @param nanos the slack, ns (at least 1)
     * @return whether it was set
     */
    public static boolean setTimerSlack(long nanos) {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(CAPTURE_STATE);
            return call(SelfCalls.PRCTL, capture, PR_SET_TIMERSLACK, Math.max(1, nanos), 0, 0, 0, 0) == 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** mmap/mprotect constants (asm-generic/mman-common.h, the same on x86_64 and aarch64). */
    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;
    public static final int PROT_EXEC = 0x4;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_ANONYMOUS = 0x20;
    /** mmap's MAP_FAILED, (void *) -1. */
    public static final long MAP_FAILED = -1L;

    private LibC() {}

    /**
     * The clock_gettime system call's number on an architecture, for syscall(2): the bindings own the syscall
     * numbers of each architecture timekeeping4j reads the counter on ({@code arch.Arch}).
     *
     * @param machine the kernel's machine name (uname -m, as {@link Platform#ARCH}), or null
     * @return the number, or -1 for an architecture without one here
     */
    public static long sysClockGettime(String machine) {
        if (machine == null) {
            return -1;
        }
        return switch (machine) {
            case "x86_64" -> 228; // arch/x86/entry/syscalls/syscall_64.tbl
            case "aarch64" -> 113; // include/uapi/asm-generic/unistd.h
            default -> -1;
        };
    }

    /** errno as the linker captured it into a {@link #CAPTURE_STATE} segment. */
    public static int errno(MemorySegment captureState) {
        return captureState.get(JAVA_INT, ERRNO_OFFSET);
    }

    private static long errnoOffset() {
        long offset = 0;
        for (MemoryLayout m : CAPTURE_STATE.memberLayouts()) {
            if ("errno".equals(m.name().orElse(null))) {
                return offset;
            }
            offset += m.byteSize(); // a struct's members in order (padding is a member too)
        }
        throw new IllegalStateException("the linker's capture state has no errno: " + CAPTURE_STATE);
    }

    /** A downcall handle to a libc function, or null off the supported platforms. Shared by the bindings. */
    static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        if (Platform.UNSUPPORTED_REASON != null) {
            return null;
        }
        MemorySegment symbol = LIBC.find(name).orElse(null); // no lambda: each costs a cold JVM milliseconds
        if (symbol == null) {
            throw new UnsatisfiedLinkError("libc has no symbol " + name + " (glibc or musl expected)");
        }
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** struct timespec { time_t tv_sec; long tv_nsec; }: 16 bytes on LP64 (man 3type timespec). */
    public static final class Timespec {
        public static final StructLayout LAYOUT = MemoryLayout.structLayout(
                JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec")).withName("timespec");
        public static final long TV_SEC = 0;
        public static final long TV_NSEC = 8;

        private Timespec() {}

        public static long sec(MemorySegment ts) {
            return ts.get(JAVA_LONG, TV_SEC);
        }

        public static long nsec(MemorySegment ts) {
            return ts.get(JAVA_LONG, TV_NSEC);
        }
    }

    /**
     * struct timex (man 2 adjtimex; include/uapi/linux/timex.h): 208 bytes on LP64. Only the fields
     * timekeeping4j reads are named; the offsets are asserted in tests against the header's layout.
     */
    public static final class Timex {
        public static final long SIZE = 208;
        public static final long MODES = 0;      // unsigned int
        public static final long OFFSET = 8;     // long: us, or ns with STA_NANO
        public static final long FREQ = 16;      // long: ppm << 16
        public static final long MAXERROR = 24;  // long: us
        public static final long ESTERROR = 32;  // long: us
        public static final long STATUS = 40;    // int: STA_* bits
        public static final long CONSTANT = 48;  // long: PLL time constant
        public static final long PRECISION = 56; // long: us
        public static final long TOLERANCE = 64; // long: ppm << 16
        public static final long TIME = 72;      // struct timeval (sec, usec; usec is ns with STA_NANO)
        public static final long TICK = 88;      // long: us between clock ticks
        public static final long TAI = 160;      // int: TAI - UTC in seconds

        private Timex() {}

        public static long getLong(MemorySegment timex, long offset) {
            return timex.get(JAVA_LONG, offset);
        }

        public static int getInt(MemorySegment timex, long offset) {
            return timex.get(JAVA_INT, offset);
        }
    }

    /** struct utsname (man 2 uname): six char[65] fields on Linux, 390 bytes. */
    public static final class Utsname {
        public static final long FIELD = 65;
        public static final long SIZE = 6 * FIELD;
        public static final long SYSNAME = 0;
        public static final long NODENAME = FIELD;
        public static final long RELEASE = 2 * FIELD;
        public static final long VERSION = 3 * FIELD;
        public static final long MACHINE = 4 * FIELD;

        private Utsname() {}

        public static String field(MemorySegment uts, long offset) {
            return uts.asSlice(offset, FIELD).getString(0);
        }
    }

}
