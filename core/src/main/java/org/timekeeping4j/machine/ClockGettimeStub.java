package org.timekeeping4j.machine;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.ClockGettime;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;

/**
 * The kernel-clock read at the cost of the JDK's own {@code System.nanoTime}: a stub that calls clock_gettime
 * ({@link ClockGettime#TARGET}: the vDSO's own, or libc's) and returns its result in nanoseconds.
 *
 * <p>A call through FFM needs a timespec the kernel writes into: a per-thread native buffer costs a chain of
 * dependent loads (Thread, its ThreadLocalMap, the entry, the segment) in front of a call whose counter read
 * waits for every older instruction, which made the read markedly slower than the JDK's. HotSpot's nanoTime
 * is a leaf call to os::javaTimeNanos, which keeps the timespec on its C stack. The stub does the same in a
 * dozen instructions: it reserves the timespec on the native stack, calls the function, and returns
 * {@code tv_sec * 10^9 + tv_nsec} (two's-complement wrap, as Java's long arithmetic), or {@link #FAILED} where
 * the call returned non-zero. REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI each get a copy that loads
 * its own id, so their downcall passes no argument ({@link #nanos(int)} picks it): measured, that is the last
 * few tenths of a nanosecond between the kernel path and nanoTime. Mapped as the counter stubs are ({@link Stubs#map}: W^X, the
 * {@code timekeeping4j.execmem} configuration); where it is not mapped (another architecture, executable memory
 * refused) {@link #NANOS} is null and readers use {@link ClockGettime#timespec()} with a buffer of their own
 * ({@link #clockGettimeNanos} does both).
 *
 * <p>Sources: x86-clock-gettime.s and arm64-clock-gettime.s next to this file, which AssemblySourcesTest
 * reassembles and compares with {@link #code}.
 */
public final class ClockGettimeStub {

    /**
     * What the stub returns where clock_gettime failed. A successful read whose value is this one (a clock
     * 292 years before its epoch) is read again through {@link ClockGettime#timespec()}, so the value is never
     * misreported.
     */
    public static final long FAILED = Long.MIN_VALUE;

    /** long (clockid_t). */
    private static final FunctionDescriptor NANOS_OF_CLOCK = FunctionDescriptor.of(JAVA_LONG, JAVA_INT);
    /** long (void): one clock's own stub. */
    private static final FunctionDescriptor NANOS_OF_ITS_CLOCK = FunctionDescriptor.of(JAVA_LONG);

    /** The x86_64 stub; the function's address is the 8-byte immediate at {@link #X86_FUNCTION}. */
    private static final String X86_CODE = "48 83 ec 18 48 89 e6 48 b8 00 00 00 00 00 00 00 00 ff d0 85 c0 75 12 48 69"
            + " 04 24 00 ca 9a 3b 48 03 44 24 08 48 83 c4 18 c3 48 b8 00 00 00 00 00 00 00 80 48 83 c4 18 c3";
    /** Where the 8-byte immediate of the function's address sits (movabs rax at 7). */
    private static final int X86_FUNCTION = 9;
    /** One clock's own x86_64 stub starts with mov edi, imm32 (bf, then the id): 5 bytes. */
    private static final int X86_OWN_CLOCK = 5;

    /**
     * The arm64 stub's words; the function's address is the literal after them (at 0x40). One clock's own stub
     * starts with {@link #ARM64_OWN_CLOCK} and drops the alignment nop, so its ldr reaches one word less far.
     */
    private static final int[] ARM64_CODE = {
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
    };
    /** movz w0, #id: the id in bits 5-20. */
    private static final int ARM64_OWN_CLOCK = 0x52800000;
    /** Where the ldr of the literal sits, and what one word less of reach takes off its encoding (imm19 at bit 5). */
    private static final int ARM64_LDR = 3;
    private static final int ARM64_LDR_ONE_WORD = 1 << 5;

    // The clocks with their own stub, by their kernel ids (include/uapi/linux/time.h, as ClockId has them) as
    // compile-time constants: ClockId's id field is an enum's, which the JIT does not fold. A caller holding a
    // ClockId passes these for it (KernelClocks.nanos), so its read folds to the clock's own stub.
    public static final int CLOCK_REALTIME = 0;
    public static final int CLOCK_MONOTONIC = 1;
    public static final int CLOCK_MONOTONIC_RAW = 4;
    public static final int CLOCK_BOOTTIME = 7;
    public static final int CLOCK_TAI = 11;

    private static final Stubs.Mapped MAPPED = ClockGettime.TARGET == null
            ? new Stubs.Mapped(null, Platform.UNSUPPORTED_REASON)
            : map(ClockGettime.TARGET.function().address(), Arch.HERE);

    /**
     * long (clockid_t): the clock in nanoseconds, or {@link #FAILED}; null where the stub is not mapped (see
     * {@link #describe()}). Critical, like the call it wraps. Static final, so the JIT inlines the downcall.
     */
    public static final MethodHandle NANOS = MAPPED.handle();

    // The clocks read most get a stub each that loads its own id: the downcall then passes no argument, and the
    // kernel path's cost comes down to the JDK's own nanoTime (docs/PERFORMANCE.md). Mapped where NANOS is
    // (same code but for the id), so the generic stub's refusal is theirs too.
    // Each is initialised after NANOS (textual order), which own() reads.
    private static final MethodHandle REALTIME_NANOS = own(CLOCK_REALTIME);
    private static final MethodHandle MONOTONIC_NANOS = own(CLOCK_MONOTONIC);
    private static final MethodHandle MONOTONIC_RAW_NANOS = own(CLOCK_MONOTONIC_RAW);
    private static final MethodHandle BOOTTIME_NANOS = own(CLOCK_BOOTTIME);
    private static final MethodHandle TAI_NANOS = own(CLOCK_TAI);

    private ClockGettimeStub() {}

    /**
     * clock_gettime(clockId) in nanoseconds, through the vDSO's clock_gettime (libc's where the vDSO has none;
     * either serves the clock in user space where the kernel publishes its data, a syscall otherwise).
     *
     * @param clockId the clock
     * @return the clock in ns
     * @throws org.timekeeping4j.linux.ErrnoException when the kernel refuses the clock id (EINVAL)
     */
    public static long clockGettimeNanos(int clockId) {
        // NANOS is static final: the JIT folds the test and inlines the stub's downcall, the clock's own stub for
        // the clocks read most (the class comment says why it is faster than a per-thread buffer). Its FAILED goes
        // on to the buffer path, which reads again and throws exactly as it did before the stub existed.
        if (NANOS != null) {
            long nanos;
            try {
                nanos = nanos(clockId);
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
            if (nanos != FAILED) {
                return nanos;
            }
        }
        return LinuxTime.clockGettimeNanosBuffered(clockId);
    }

    /**
     * The clock in nanoseconds, or {@link #FAILED}, through the clock's own stub where it has one, else
     * {@link #NANOS}. Only where {@link #NANOS} is not null. A constant id folds to its one downcall; any other id
     * costs a compare or two before it.
     *
     * @param clockId the clock id, as clock_gettime takes it
     * @return the clock in ns, or {@link #FAILED}
     * @throws Throwable only as a downcall can (it does not throw)
     */
    public static long nanos(int clockId) throws Throwable {
        return switch (clockId) {
            case CLOCK_MONOTONIC -> (long) MONOTONIC_NANOS.invokeExact();
            case CLOCK_REALTIME -> (long) REALTIME_NANOS.invokeExact();
            case CLOCK_MONOTONIC_RAW -> (long) MONOTONIC_RAW_NANOS.invokeExact();
            case CLOCK_BOOTTIME -> (long) BOOTTIME_NANOS.invokeExact();
            case CLOCK_TAI -> (long) TAI_NANOS.invokeExact();
            default -> (long) NANOS.invokeExact(clockId);
        };
    }

    /**
     * The clock's read as {@code long ()}: its own stub (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI), else
     * {@link #NANOS} with the id bound; the clock in nanoseconds, or {@link #FAILED}. Null where {@link #NANOS}
     * is (the stubs are not mapped here).
     *
     * @param clockId the clock id, as clock_gettime takes it
     * @return the handle, or null
     */
    public static MethodHandle handle(int clockId) {
        if (NANOS == null) {
            return null;
        }
        return switch (clockId) {
            case CLOCK_MONOTONIC -> MONOTONIC_NANOS;
            case CLOCK_REALTIME -> REALTIME_NANOS;
            case CLOCK_MONOTONIC_RAW -> MONOTONIC_RAW_NANOS;
            case CLOCK_BOOTTIME -> BOOTTIME_NANOS;
            case CLOCK_TAI -> TAI_NANOS;
            default -> MethodHandles.insertArguments(NANOS, 0, clockId);
        };
    }

    /** The clock's own stub; where that one mapping fails (and NANOS did not), NANOS with the id bound. */
    private static MethodHandle own(int clockId) {
        if (NANOS == null) {
            return null;
        }
        Stubs.Mapped own = map(ClockGettime.TARGET.function().address(), Arch.HERE, clockId);
        return own.ok() ? own.handle() : MethodHandles.insertArguments(NANOS, 0, clockId);
    }

    /** {@return one line: which clock_gettime the kernel reads call, and whether through the stub and why not} */
    public static String describe() {
        if (ClockGettime.TARGET == null) {
            return Platform.UNSUPPORTED_REASON;
        }
        return ClockGettime.TARGET.description() + (NANOS != null ? ", through the nanosecond stub (a copy with"
                + " its id in the code for CLOCK_REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI)"
                : ", into a per-thread buffer (no stub: " + MAPPED.failure() + ")");
    }

    /**
     * Maps the stub over {@code function} for {@code arch}, or says why not.
     *
     * @param function the address of a clock_gettime ({@code int (clockid_t, struct timespec *)})
     * @param arch     the architecture to map the code of (null: none known here)
     * @return the handle, or why there is none
     */
    public static Stubs.Mapped map(long function, Arch arch) {
        if (arch == null) {
            return new Stubs.Mapped(null, "the clock_gettime stub is x86_64 and aarch64 code and this is "
                    + Platform.ARCH);
        }
        return Stubs.map("clock_gettime stub", code(arch, function), NANOS_OF_CLOCK, arch);
    }

    /**
     * As {@link #map(long, Arch)}, for one clock's own stub: {@code long (void)}.
     *
     * @param function the address of a clock_gettime
     * @param arch     the architecture (not null)
     * @param clockId  the clock the stub reads (0 to 65535)
     * @return the handle, or why there is none
     */
    public static Stubs.Mapped map(long function, Arch arch, int clockId) {
        return Stubs.map("clock_gettime stub", code(arch, function, clockId), NANOS_OF_ITS_CLOCK, arch);
    }

    /**
     * The stub for {@code arch} calling {@code function}.
     *
     * @param arch     the architecture
     * @param function the address of the clock_gettime it calls
     * @return the function's machine code, a fresh array
     */
    public static byte[] code(Arch arch, long function) {
        return switch (arch) {
            case X86_64 -> {
                byte[] code = MachineCode.x86(X86_CODE);
                ByteBuffer.wrap(code).order(ByteOrder.LITTLE_ENDIAN).putLong(X86_FUNCTION, function);
                yield code;
            }
            case AARCH64 -> arm64(ARM64_CODE.clone(), function);
        };
    }

    /**
     * One clock's own stub for {@code arch} calling {@code function}: the source built with {@code CLOCK=clockId}.
     *
     * @param arch     the architecture
     * @param function the address of the clock_gettime it calls
     * @param clockId  the clock it reads (0 to 65535: the arm64 immediate)
     * @return the function's machine code, a fresh array
     */
    public static byte[] code(Arch arch, long function, int clockId) {
        if (clockId < 0 || clockId > 0xffff) {
            throw new IllegalArgumentException("a clock's own stub takes ids 0 to 65535, not " + clockId);
        }
        return switch (arch) {
            case X86_64 -> {
                byte[] body = code(arch, function);
                byte[] code = new byte[X86_OWN_CLOCK + body.length];
                ByteBuffer.wrap(code).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xbf).putInt(clockId).put(body);
                yield code;
            }
            case AARCH64 -> {
                int[] words = new int[ARM64_CODE.length];           // the id's word in, the alignment nop out
                words[0] = ARM64_OWN_CLOCK | clockId << 5;
                System.arraycopy(ARM64_CODE, 0, words, 1, ARM64_CODE.length - 1);
                words[1 + ARM64_LDR] -= ARM64_LDR_ONE_WORD;
                yield arm64(words, function);
            }
        };
    }

    private static byte[] arm64(int[] code, long function) {
        int[] words = new int[code.length + 2];
        System.arraycopy(code, 0, words, 0, code.length);
        words[code.length] = (int) function;               // the literal, little-endian
        words[code.length + 1] = (int) (function >>> 32);
        return MachineCode.arm64(words);
    }
}
