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
    // milliseconds of LambdaForm spinning, so exact mode's discovery binds only what it calls (Syscall, and
    // ClockGettimeErrno where a clock fails); the handles of the same descriptor and options share the JDK's
    // invoker (ClockGettimeErrno, ClockGetresErrno, ClockAdjtimeErrno).

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

    /** void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset): man 2 mmap. */
    public static final class MmapErrno {
        public static final MethodHandle HANDLE = handle("mmap",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), ERRNO_OPTION);

        private MmapErrno() {}
    }

    /** int mprotect(void *addr, size_t len, int prot): man 2 mprotect. */
    public static final class MprotectErrno {
        public static final MethodHandle HANDLE = handle("mprotect",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO_OPTION);

        private MprotectErrno() {}
    }

    /** int munmap(void *addr, size_t length): man 2 munmap. */
    public static final class MunmapErrno {
        public static final MethodHandle HANDLE = handle("munmap",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), ERRNO_OPTION);

        private MunmapErrno() {}
    }

    /**
     * long syscall(long number, long a1, ..., long a6), errno captured: the system calls the bindings make for
     * themselves (mmap, mprotect and munmap for the stubs, pipe2, write and close for {@link PageProbe}) through one
     * handle, one descriptor: a cold JVM spins LambdaForms per descriptor, and exact mode's discovery would
     * otherwise pay for six. The arguments are variadic longs (the kernel takes the low bits it needs; unused ones
     * are ignored); the result is the call's, or -1 with errno in the capture segment, as libc's syscall(2) returns.
     * Only where {@link #SYS_MMAP} is not -1 (x86_64 and the generic table: aarch64, riscv64, loongarch64).
     */
    public static final class Syscall {
        public static final MethodHandle HANDLE = handle("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(1),
                ERRNO_OPTION);

        private Syscall() {}
    }

    // The numbers of the calls made through Syscall (arch/x86/entry/syscalls/syscall_64.tbl; the generic table,
    // include/uapi/asm-generic/unistd.h), -1 where this architecture's are not known here: use the libc handles.
    public static final long SYS_WRITE = syscallNumber(1, 64);
    public static final long SYS_CLOSE = syscallNumber(3, 57);
    public static final long SYS_MMAP = syscallNumber(9, 222);
    public static final long SYS_MPROTECT = syscallNumber(10, 226);
    public static final long SYS_MUNMAP = syscallNumber(11, 215);
    public static final long SYS_PIPE2 = syscallNumber(293, 59);

    private static long syscallNumber(long x86, long generic) {
        String machine = Platform.ARCH;
        if ("x86_64".equals(machine)) {
            return x86;
        }
        return "aarch64".equals(machine) || "riscv64".equals(machine) || "loongarch64".equals(machine) ? generic : -1;
    }

    /**
     * syscall(2) through {@link Syscall}: the call's result, or -1 with errno in {@code capture}.
     *
     * @param capture a {@link #CAPTURE_STATE} segment
     * @param number  the call's number (one of the SYS_ constants, not -1)
     * @param a1      first argument
     * @param a2      second argument
     * @param a3      third argument
     * @param a4      fourth argument
     * @param a5      fifth argument
     * @param a6      sixth argument
     * @return the result, or -1
     */
    public static long syscall(MemorySegment capture, long number, long a1, long a2, long a3, long a4, long a5,
            long a6) {
        try {
            return (long) Syscall.HANDLE.invokeExact(capture, number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
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
     * numbers of each architecture timekeeping4j reads the counter on ({@code clocksource.CounterArch}).
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
