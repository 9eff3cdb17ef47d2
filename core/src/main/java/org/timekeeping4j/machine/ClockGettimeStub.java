package org.timekeeping4j.machine;

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
 * few tenths of a nanosecond between the kernel path and nanoTime. The generic copy takes the exact read's four
 * arguments ({@link VdsoStub}: the id is the third), so that a cold JVM links one downcall shape for both (each
 * shape costs it milliseconds) and the exact read's generic call site calls it as it is. Mapped as the counter
 * stubs are ({@link Stubs#map}: W^X, the {@code timekeeping4j.execmem} configuration); where it is not mapped
 * (another architecture, executable memory refused) {@link #NANOS} is null and readers use
 * {@link ClockGettime#timespec()} with a buffer of their own ({@link #clockGettimeNanos} does both).
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

    /**
     * The x86_64 stub after the instruction that puts the id in edi; the function's address is the 8-byte
     * immediate at {@link #X86_FUNCTION} (movabs rax at 7).
     */
    private static final String X86_BODY = "48 83 ec 18 48 89 e6 48 b8 00 00 00 00 00 00 00 00 ff d0 85 c0 75 12 48 69"
            + " 04 24 00 ca 9a 3b 48 03 44 24 08 48 83 c4 18 c3 48 b8 00 00 00 00 00 00 00 80 48 83 c4 18 c3";
    private static final int X86_FUNCTION = 9;
    /** The generic x86_64 stub starts with mov edi, edx: the id, the third argument. */
    private static final String X86_ID_OF_ARGUMENT = "89 d7";
    /** One clock's own x86_64 stub starts with mov edi, imm32 (bf, then the id). */
    private static final byte X86_ID_OF_CODE = (byte) 0xbf;

    /**
     * The arm64 stub after the word that puts the id in w0 (the instructions: arm64-clock-gettime.s, which
     * AssemblySourcesTest compares); the function's address is the literal after them (at 0x40).
     */
    private static final int[] ARM64_BODY = {
        0xa9be7bfd, 0x910003fd, 0x910043e1, 0x58000190, 0xd63f0200,
        0x350000e0, 0xa9410fe2, 0xd2994004, 0xf2a77344, 0x9b040c40,
        0xa8c27bfd, 0xd65f03c0, 0xd2f00000, 0xa8c27bfd, 0xd65f03c0,
    };
    /** The generic arm64 stub starts with mov w0, w2: the id, the third argument. */
    private static final int ARM64_ID_OF_ARGUMENT = 0x2a0203e0;
    /** One clock's own arm64 stub starts with movz w0, #id: the id in bits 5-20. */
    private static final int ARM64_ID_OF_CODE = 0x52800000;

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
     * long (long, long, long clockId, long), the exact read's arguments, of which only the third is read: the clock
     * in nanoseconds, or {@link #FAILED}; null where the stub is not mapped (see {@link #describe()}). Critical,
     * like the call it wraps. Static final, so the JIT inlines the downcall.
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
            default -> (long) NANOS.invokeExact(0L, 0L, (long) clockId, 0L);
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
            default -> ofClock(clockId);
        };
    }

    /** {@link #NANOS} with the clock bound: {@code long ()}. */
    private static MethodHandle ofClock(int clockId) {
        return MethodHandles.insertArguments(NANOS, 0, 0L, 0L, (long) clockId, 0L);
    }

    /** The clock's own stub; where that one mapping fails (and NANOS did not), NANOS with the id bound. */
    private static MethodHandle own(int clockId) {
        if (NANOS == null) {
            return null;
        }
        Stubs.Mapped own = map(ClockGettime.TARGET.function().address(), Arch.HERE, clockId);
        return own.ok() ? own.handle() : ofClock(clockId);
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
        return Stubs.map("clock_gettime stub", code(arch, function), Stubs.FOUR_LONGS, arch);
    }

    /**
     * As {@link #map(long, Arch)}, for one clock's own stub: {@code long ()}.
     *
     * @param function the address of a clock_gettime
     * @param arch     the architecture (not null)
     * @param clockId  the clock the stub reads (0 to 65535)
     * @return the handle, or why there is none
     */
    public static Stubs.Mapped map(long function, Arch arch, int clockId) {
        return Stubs.map("clock_gettime stub", code(arch, function, clockId), Stubs.LONG_VOID, arch);
    }

    /**
     * The generic stub for {@code arch} calling {@code function}: the id is its third argument.
     *
     * @param arch     the architecture
     * @param function the address of the clock_gettime it calls
     * @return the function's machine code, a fresh array
     */
    public static byte[] code(Arch arch, long function) {
        return switch (arch) {
            case X86_64 -> x86(MachineCode.x86(X86_ID_OF_ARGUMENT), function);
            case AARCH64 -> arm64(ARM64_ID_OF_ARGUMENT, function);
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
                byte[] movImm = new byte[5];
                ByteBuffer.wrap(movImm).order(ByteOrder.LITTLE_ENDIAN).put(X86_ID_OF_CODE).putInt(clockId);
                yield x86(movImm, function);
            }
            case AARCH64 -> arm64(ARM64_ID_OF_CODE | clockId << 5, function);
        };
    }

    /** {@code idToEdi}, then the body with {@code function} in its immediate. */
    private static byte[] x86(byte[] idToEdi, long function) {
        byte[] body = MachineCode.x86(X86_BODY);
        byte[] code = new byte[idToEdi.length + body.length];
        ByteBuffer.wrap(code).order(ByteOrder.LITTLE_ENDIAN).put(idToEdi).put(body)
                .putLong(idToEdi.length + X86_FUNCTION, function);
        return code;
    }

    /** {@code idToW0}, the body, then {@code function} as the literal, little-endian. */
    private static byte[] arm64(int idToW0, long function) {
        int[] words = new int[1 + ARM64_BODY.length + 2];
        words[0] = idToW0;
        System.arraycopy(ARM64_BODY, 0, words, 1, ARM64_BODY.length);
        words[words.length - 2] = (int) function;
        words[words.length - 1] = (int) (function >>> 32);
        return MachineCode.arm64(words);
    }
}
