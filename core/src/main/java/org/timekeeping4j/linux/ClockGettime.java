package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Which clock_gettime the kernel-clock reads call, and its FFM binding.
 *
 * <p>The vDSO's own clock_gettime ({@code __vdso_clock_gettime} on x86_64, {@code __kernel_clock_gettime} on
 * aarch64), found by {@link VdsoSymbols}; libc's clock_gettime where the vDSO has no such function (or the
 * kernel mapped none). Both read every clock id alike: the vDSO serves the clocks it has data for and makes the
 * system call itself for the others (CPU-time clocks, dynamic clocks, invalid ids). They differ only in how
 * they fail: libc returns -1 and sets errno, the vDSO returns -errno; callers only test for non-zero and ask
 * libc's errno-capturing twin why. The machine code that calls it with the timespec on the native stack, at
 * the JDK's nanoTime's cost, is {@code machine.ClockGettimeStub}.
 */
public final class ClockGettime {

    private static final FunctionDescriptor INT_TIMESPEC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);

    /**
     * A clock_gettime, and where it came from.
     *
     * @param function    the function
     * @param description which one it is, and why (one line)
     */
    public record Target(MemorySegment function, String description) {}

    /**
     * The function every kernel-clock read calls: the vDSO's where it has one, libc's otherwise (null off the
     * supported platforms).
     */
    public static final Target TARGET = target(vdsoLookup(), libcClockGettime());

    /**
     * int (clockid_t, struct timespec *) on {@link #TARGET}: 0, or non-zero where it failed (then call
     * {@link LibC.ClockGettimeErrno} for errno). Critical: it neither blocks nor calls back.
     *
     * @return the handle, or null off the supported platforms
     */
    public static MethodHandle timespec() {
        return Timespec.HANDLE;
    }

    /** {@link #timespec()}'s holder: bound on first use (where the kernel path's stub serves, never). */
    private static final class Timespec {
        static final MethodHandle HANDLE = TARGET == null ? null
                : Linker.nativeLinker().downcallHandle(TARGET.function(), INT_TIMESPEC, Linker.Option.critical(false));
    }

    private ClockGettime() {}

    /** The vDSO symbol of clock_gettime on this architecture, or why it is not used. */
    static VdsoSymbols.Lookup vdsoLookup() {
        if (Platform.UNSUPPORTED_REASON != null) {
            return new VdsoSymbols.Lookup(0, Platform.UNSUPPORTED_REASON);
        }
        return switch (Platform.ARCH) {
            case "x86_64" -> VdsoSymbols.find("__vdso_clock_gettime", 62);       // EM_X86_64
            case "aarch64" -> VdsoSymbols.find("__kernel_clock_gettime", 183);   // EM_AARCH64
            default -> new VdsoSymbols.Lookup(0, "the vDSO's clock_gettime is looked up on x86_64 and aarch64 only");
        };
    }

    private static MemorySegment libcClockGettime() {
        if (Platform.UNSUPPORTED_REASON != null) {
            return null;
        }
        MemorySegment f = Linker.nativeLinker().defaultLookup().find("clock_gettime").orElse(null); // no lambda
        if (f == null) {
            throw new UnsatisfiedLinkError("libc has no symbol clock_gettime (glibc or musl expected)");
        }
        return f;
    }

    /** The vDSO's function where the lookup found it, else libc's (null: unsupported platform). */
    static Target target(VdsoSymbols.Lookup vdso, MemorySegment libc) {
        if (libc == null) {
            return null;
        }
        if (vdso.found()) {
            return new Target(MemorySegment.ofAddress(vdso.address()), "the vDSO's clock_gettime");
        }
        return new Target(libc, "libc's clock_gettime (" + vdso.failure() + ")");
    }
}
