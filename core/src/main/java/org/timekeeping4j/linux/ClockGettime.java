package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * The kernel-clock read at the cost of the JDK's own {@code System.nanoTime}: which clock_gettime is called,
 * and the stub that returns its result in nanoseconds.
 *
 * <p><b>The function.</b> The vDSO's own clock_gettime ({@code __vdso_clock_gettime} on x86_64,
 * {@code __kernel_clock_gettime} on aarch64), found by {@link VdsoSymbols}; libc's clock_gettime where the
 * vDSO has no such function (or the kernel mapped none). Both read every clock id alike: the vDSO serves the
 * clocks it has data for and makes the system call itself for the others (CPU-time clocks, dynamic clocks,
 * invalid ids). They differ only in how they fail: libc returns -1 and sets errno, the vDSO returns -errno;
 * callers only test for non-zero and ask libc's errno-capturing twin why.
 *
 * <p><b>The stub.</b> A call through FFM needs a timespec the kernel writes into: a per-thread native buffer
 * costs a chain of dependent loads (Thread, its ThreadLocalMap, the entry, the segment) in front of a call
 * whose counter read waits for every older instruction, which made the read markedly slower than the JDK's.
 * HotSpot's nanoTime is a leaf call to os::javaTimeNanos, which keeps the timespec on its C stack. The stub
 * does the same in a dozen instructions: it reserves the timespec on the native stack, calls the function,
 * and returns {@code tv_sec * 10^9 + tv_nsec} (two's-complement wrap, as Java's long arithmetic), or
 * {@link #FAILED} where the call returned non-zero. Mapped as the counter stubs are (W^X), honouring the
 * same {@code timekeeping4j.execmem} property; where it is not mapped (another architecture, executable
 * memory refused) {@link #NANOS} is null and readers use {@link #TIMESPEC} with a buffer of their own.
 */
public final class ClockGettime {

    /**
     * What the stub returns where clock_gettime failed. A successful read whose value is this one (a clock
     * 292 years before its epoch) is read again through {@link #TIMESPEC}, so the value is never misreported.
     */
    public static final long FAILED = Long.MIN_VALUE;

    /** "deny" refuses executable memory; unset or "allow" maps; anything else refuses (a typo must not allow). */
    static final String EXECMEM_PROPERTY = "timekeeping4j.execmem";

    private static final FunctionDescriptor INT_TIMESPEC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);

    /** The clock_gettime every read calls, and where it came from. */
    record Target(MemorySegment function, String description) {}

    /** The function: the vDSO's where it has one, libc's otherwise. Null off the supported platforms. */
    static final Target TARGET = target(vdsoLookup(), libcClockGettime());

    /**
     * int (clockid_t, struct timespec *) on {@link #TARGET}: 0, or non-zero where it failed (then call
     * {@link LibC#CLOCK_GETTIME_ERRNO} for errno). Critical: it neither blocks nor calls back.
     */
    public static final MethodHandle TIMESPEC = TARGET == null ? null
            : Linker.nativeLinker().downcallHandle(TARGET.function(), INT_TIMESPEC, Linker.Option.critical(false));

    /** The stub's handle, or why there is none. */
    record Stub(MethodHandle handle, String failure) {}

    private static final Stub STUB = TARGET == null ? new Stub(null, Platform.UNSUPPORTED_REASON)
            : map(TARGET, Platform.ARCH, System.getProperty(EXECMEM_PROPERTY));

    /**
     * long (clockid_t): the clock in nanoseconds, or {@link #FAILED}; null where the stub is not mapped (see
     * {@link #describe()}). Critical, like the call it wraps. Static final, so the JIT inlines the downcall.
     */
    public static final MethodHandle NANOS = STUB.handle();

    private ClockGettime() {}

    /** {@return one line: which clock_gettime the kernel reads call, and whether through the stub and why not} */
    public static String describe() {
        if (TARGET == null) {
            return Platform.UNSUPPORTED_REASON;
        }
        return TARGET.description() + (NANOS != null ? ", through the nanosecond stub"
                : ", into a per-thread buffer (no stub: " + STUB.failure() + ")");
    }

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
        return Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(
                () -> new UnsatisfiedLinkError("libc has no symbol clock_gettime (glibc or musl expected)"));
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

    /** Maps the stub over {@code target} for {@code arch}, or says why not. */
    static Stub map(Target target, String arch, String execmem) {
        byte[] code = switch (arch) {
            case "x86_64" -> x86Stub(target.function().address());
            case "aarch64" -> a64Stub(target.function().address());
            default -> null;
        };
        if (code == null) {
            return new Stub(null, "the stub is x86_64 and aarch64 code and this is " + arch);
        }
        String mode = execmem == null ? "allow" : execmem.trim().toLowerCase(Locale.ROOT);
        if (!mode.equals("allow")) {
            return new Stub(null, mode.equals("deny") ? "executable memory refused (" + EXECMEM_PROPERTY + "=deny)"
                    : EXECMEM_PROPERTY + "=" + execmem + " is not an execmem mode; use one of allow, deny");
        }
        try {
            return new Stub(Linker.nativeLinker().downcallHandle(ExecutableMemory.map(code), FunctionDescriptor.of(JAVA_LONG, JAVA_INT),
                    Linker.Option.critical(false)), null);
        } catch (ErrnoException e) {
            return new Stub(null, "executable memory refused: " + e.getMessage());
        }
    }

    /**
     * The x86_64 stub calling {@code function} (SysV ABI: the clock id arrives in edi and stays there for the
     * call; rsp is 8 mod 16 on entry, so reserving 24 bytes aligns the call and holds the 16-byte timespec).
     */
    static byte[] x86Stub(long function) {
        byte[] code = {
            0x48, (byte) 0x83, (byte) 0xEC, 0x18,                             // sub rsp, 24
            0x48, (byte) 0x89, (byte) 0xE6,                                   // mov rsi, rsp       (&timespec)
            0x48, (byte) 0xB8, 0, 0, 0, 0, 0, 0, 0, 0,                        // mov rax, function  (imm64 at 9)
            (byte) 0xFF, (byte) 0xD0,                                         // call rax
            (byte) 0x85, (byte) 0xC0,                                         // test eax, eax
            0x75, 0x12,                                                       // jnz failed         (+18)
            0x48, 0x69, 0x04, 0x24, 0x00, (byte) 0xCA, (byte) 0x9A, 0x3B,     // imul rax, [rsp], 1000000000
            0x48, 0x03, 0x44, 0x24, 0x08,                                     // add rax, [rsp+8]
            0x48, (byte) 0x83, (byte) 0xC4, 0x18,                             // add rsp, 24
            (byte) 0xC3,                                                      // ret
            0x48, (byte) 0xB8, 0, 0, 0, 0, 0, 0, 0, (byte) 0x80,              // failed: mov rax, FAILED
            0x48, (byte) 0x83, (byte) 0xC4, 0x18,                             // add rsp, 24
            (byte) 0xC3,                                                      // ret
        };
        for (int k = 0; k < 8; k++) {
            code[9 + k] = (byte) (function >>> (8 * k));
        }
        return code;
    }

    /**
     * The aarch64 stub calling {@code function} (AAPCS64: the clock id arrives in w0 and stays there for the
     * call; a 32-byte frame holds fp, lr and the timespec at sp+16; the function's address is a literal after
     * the code, loaded pc-relative).
     */
    static byte[] a64Stub(long function) {
        int[] words = {
            0xa9be7bfd, // stp x29, x30, [sp, #-32]!
            0x910003fd, // mov x29, sp
            0x910043e1, // add x1, sp, #16            (&timespec)
            0x580001b0, // ldr x16, function          (the literal at 0x40)
            0xd63f0200, // blr x16
            0x350000e0, // cbnz w0, failed            (0x30)
            0xa9410fe2, // ldp x2, x3, [sp, #16]      (tv_sec, tv_nsec)
            0xd2994004, // movz x4, #0xca00
            0xf2a77344, // movk x4, #0x3b9a, lsl #16  (x4 = 1000000000)
            0x9b040c40, // madd x0, x2, x4, x3
            0xa8c27bfd, // ldp x29, x30, [sp], #32
            0xd65f03c0, // ret
            0xd2f00000, // failed: movz x0, #0x8000, lsl #48 (FAILED)
            0xa8c27bfd, // ldp x29, x30, [sp], #32
            0xd65f03c0, // ret
            0xd503201f, // nop                        (aligns the literal to 8)
            (int) function, (int) (function >>> 32),
        };
        byte[] code = new byte[words.length * 4];
        for (int i = 0; i < code.length; i++) {
            code[i] = (byte) (words[i / 4] >>> (8 * (i % 4)));
        }
        return code;
    }
}
