package org.timekeeping4j.machine;

import java.lang.invoke.MethodHandle;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.linux.ClockGettime;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;

/**
 * Maps the kernel-data read of a layout's {@link VdsoAlgorithm} ({@link X86VdsoCode} and {@link VclockCode} on
 * x86_64, {@link Arm64VdsoCode} on arm64) as a
 * critical downcall: {@code (long vc, long ts, long testCounter, long vclock) -> long}, addresses as longs (the
 * vclock argument: see {@link VclockCode}; the codes without vclock paths ignore it) so that a caller holding them in
 * static finals passes constants. A handle is made once per (algorithm, flavour) and kept by the caller in a
 * static final field, where the JIT inlines the downcall.
 *
 * <p>Not API: a handle reads whatever addresses it is given. The vdso package holds the handles, with the
 * addresses of the kernel's data it found, in its own static finals.
 */
public final class VdsoStub {

    /** What the read returns instead of a time when clock_gettime must answer. */
    public static final long FALLBACK = Long.MIN_VALUE;

    private VdsoStub() {}

    /**
     * Maps the machine code of {@code algorithm}, which reads the vDSO data with its architecture's counter.
     *
     * @param algorithm the layout's algorithm ({@code vdso.VdsoLayout.algorithm()})
     * @param ordered   true for the ordered counter read, false for the unordered one
     * @return the mapped code, or why it could not be mapped
     */
    public static Stubs.Mapped map(VdsoAlgorithm algorithm, boolean ordered) {
        return map(algorithm, ordered, false);
    }

    /**
     * As {@link #map(VdsoAlgorithm, boolean)}; with {@code completeFallback} the code calls
     * clock_gettime itself where the vDSO would fall back, where the algorithm's code can (X86_OVERFLOW,
     * {@link VclockCode}; elsewhere the flag is ignored and a fallback returns {@link #FALLBACK}).
     * Callers then pass the clock id as the third argument.
     *
     * @param algorithm        the layout's algorithm ({@code vdso.VdsoLayout.algorithm()})
     * @param ordered          true for the ordered counter read, false for the unordered one
     * @param completeFallback whether a fallback calls clock_gettime from the code
     * @return the mapped code, or why it could not be mapped
     */
    public static Stubs.Mapped map(VdsoAlgorithm algorithm, boolean ordered, boolean completeFallback) {
        return switch (algorithm) {
            case X86_LEGACY, X86_OVERFLOW -> map(algorithm, x86Flavour(ordered), completeFallback);
            case ARM64_GENERIC -> map(ordered ? Arm64VdsoCode.Flavour.ISB_CNTVCT : Arm64VdsoCode.Flavour.CNTVCT);
        };
    }

    /**
     * Maps the x86_64 code for {@code algorithm} around {@code flavour}'s counter read.
     *
     * @param algorithm an x86_64 layout's algorithm
     * @param flavour   the counter read
     * @return the mapped code, or why it could not be mapped
     */
    public static Stubs.Mapped map(VdsoAlgorithm algorithm, X86VdsoCode.Flavour flavour) {
        return map(algorithm, flavour, false);
    }

    /**
     * As {@link #map(VdsoAlgorithm, X86VdsoCode.Flavour)}; with {@code completeFallback}, the X86_OVERFLOW code
     * calls libc's clock_gettime itself where the vDSO would fall back ({@link VclockCode}), the clock id taken
     * from the third argument: callers then pass the clock id there, and the fallback value means only that
     * clock_gettime failed.
     *
     * @param algorithm        an x86_64 layout's algorithm
     * @param flavour          the counter read (not the test flavour with {@code completeFallback})
     * @param completeFallback whether a fallback calls clock_gettime from the code
     * @return the mapped code, or why it could not be mapped
     */
    public static Stubs.Mapped map(VdsoAlgorithm algorithm, X86VdsoCode.Flavour flavour, boolean completeFallback) {
        byte[] code = completeFallback && algorithm == VdsoAlgorithm.X86_OVERFLOW
                ? VclockCode.x86(flavour, CLOCK_GETTIME_ADDRESS) : X86VdsoCode.code(algorithm, flavour);
        return Stubs.map("vdso read (" + algorithm + ", " + flavour.instructions()
                + (completeFallback ? ", completing its fallback" : "") + ")", code, Stubs.FOUR_LONGS, Arch.X86_64);
    }

    /**
     * Whether {@code algorithm}'s machine code can call clock_gettime itself where the vDSO would fall back
     * ({@link #map(VdsoAlgorithm, boolean, boolean)} with {@code completeFallback}) and be mapped per clock
     * with its arguments bound ({@link #mapBound}): the x86_64 6.10+ read ({@link VclockCode}).
     *
     * @param algorithm the layout's algorithm
     * @return true for {@link VdsoAlgorithm#X86_OVERFLOW}
     */
    public static boolean completesFallback(VdsoAlgorithm algorithm) {
        return algorithm == VdsoAlgorithm.X86_OVERFLOW;
    }

    /**
     * Maps one clock's read of the completing code ({@link VclockCode#x86Bound}): the read with the clock's
     * arguments as immediates, {@code long ()}, calling the kernel path's clock_gettime where the vDSO would fall
     * back, as {@link #map(VdsoAlgorithm, boolean, boolean)} does with the arguments passed. Where
     * {@link #completesFallback} only.
     *
     * @param algorithm the layout's algorithm
     * @param ordered   true for the ordered counter read, false for the unordered one
     * @param vc        the clock's vdso base
     * @param ts        its vdso_timestamp
     * @param clockId   its clock id
     * @param vclock    the vclock word
     * @return the mapped code, or why there is none
     */
    public static Stubs.Mapped mapBound(VdsoAlgorithm algorithm, boolean ordered, long vc, long ts, int clockId,
            long vclock) {
        if (!completesFallback(algorithm)) {
            return new Stubs.Mapped(null, "no bound read for " + algorithm);
        }
        X86VdsoCode.Flavour flavour = x86Flavour(ordered);
        byte[] read = VclockCode.x86(flavour, CLOCK_GETTIME_ADDRESS);
        return Stubs.map("vdso read of clock " + clockId + " (" + flavour.instructions() + ")",
                VclockCode.x86Bound(read, vc, ts, clockId, vclock), Stubs.LONG_VOID, Arch.X86_64);
    }

    /** The x86 counter read: {@link #orderedFlavour()}, or rdtsc for the unordered read. */
    private static X86VdsoCode.Flavour x86Flavour(boolean ordered) {
        return ordered ? orderedFlavour() : X86VdsoCode.Flavour.RDTSC;
    }

    /**
     * The clock_gettime a fallback calls: the kernel path's ({@link ClockGettime#TARGET}: the vDSO's own where it
     * has one, which saves libc's indirection on every fallback; libc's otherwise), or 0 off the supported
     * platforms. A failure (libc: -1, the vDSO: a negative errno) is non-zero either way, which is all the code
     * tests before it returns the fallback value.
     */
    private static final long CLOCK_GETTIME_ADDRESS = ClockGettime.TARGET == null ? 0
            : ClockGettime.TARGET.function().address();

    /**
     * Maps the arm64 code ({@link Arm64VdsoCode}, ARM64_GENERIC: the generic vdso_calc_ns with the 56-bit mask;
     * vdso_data 5.7-6.14 and vdso_clock 6.15+ share its field offsets; before 5.7 clock_mode meant the opposite
     * and exact mode refuses those kernels, clocksource.Arch.vdsoRefusal) around {@code flavour}'s counter read.
     * @param flavour the counter read
     * @return the mapped code, or why it could not be mapped
     */
    public static Stubs.Mapped map(Arm64VdsoCode.Flavour flavour) {
        return Stubs.map("vdso read (arm64, " + flavour.instructions() + ")", Arm64VdsoCode.code(flavour),
                Stubs.FOUR_LONGS, Arch.AARCH64);
    }

    /**
     * The ordered counter read the kernel's vDSO itself uses here (rdtsc_ordered): lfence;rdtsc where the
     * kernel marks LFENCE as serialising rdtsc (X86_FEATURE_LFENCE_RDTSC), else rdtscp where the CPU has it,
     * else lfence;rdtsc: without the kernel's flag lfence;rdtsc may read early (an AMD guest measured it,
     * docs/PERFORMANCE.md), so rdtscp is preferred there.
     * @return the x86 flavour to read the counter with
     */
    public static X86VdsoCode.Flavour orderedFlavour() {
        return ORDERED_FLAVOUR;
    }

    /** {@link #orderedFlavour()}, decided once: /proc/cpuinfo is read once per process. */
    private static final X86VdsoCode.Flavour ORDERED_FLAVOUR = decideOrderedFlavour();

    private static X86VdsoCode.Flavour decideOrderedFlavour() {
        // The counter selection's order (Arch.X86_64.reads): its first ordered read.
        CounterRead first = Arch.X86_64.reads(true, KernelInfo.cpuFlags(), 0).getFirst();
        return first == CounterRead.X86_RDTSCP ? X86VdsoCode.Flavour.RDTSCP : X86VdsoCode.Flavour.LFENCE_RDTSC;
    }

    /** x86_64: the ordered read is lfence;rdtsc (else rdtscp). A static final, so the JIT keeps one branch. */
    static final boolean ORDERED_LFENCE = ORDERED_FLAVOUR == X86VdsoCode.Flavour.LFENCE_RDTSC;

    /** This machine's architecture, as static finals: the JIT folds the tests below away. */
    private static final boolean X86_64 = Arch.HERE == Arch.X86_64;
    private static final boolean AARCH64 = Arch.HERE == Arch.AARCH64;

    /**
     * The counter, read as the exact-mode code reads it (x86: {@link #orderedFlavour()}; arm64: isb; mrs
     * cntvct_el0), without conversion: for snapshots, whose counter read comes first and is converted
     * afterwards. Only where exact mode serves (its stubs map).
     * @return the counter value (cycles), read after every earlier load
     */
    public static long readCounterOrdered() {
        try {
            if (X86_64) { // ORDERED_LFENCE is a static final too: the JIT keeps one branch
                return ORDERED_LFENCE ? (long) Stubs.LfenceRdtsc.HANDLE.invokeExact()
                        : (long) Stubs.RdtscpNoAux.HANDLE.invokeExact();
            }
            if (AARCH64) {
                return (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            }
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
        throw noCounter();
    }

    /**
     * The counter, unordered (rdtsc, mrs cntvct_el0): the cheapest timestamp, for {@code Clocks.ticks()}.
     *
     * @return the counter value (cycles)
     */
    public static long readCounterUnordered() {
        try {
            if (X86_64) {
                return (long) Stubs.Rdtsc.HANDLE.invokeExact();
            }
            if (AARCH64) {
                return (long) Stubs.Cntvct.HANDLE.invokeExact();
            }
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
        throw noCounter();
    }

    private static IllegalStateException noCounter() {
        return new IllegalStateException(Arch.noDescriptor(Platform.ARCH)
                + "; read the counter only where exact mode serves");
    }

    /**
     * Calls a mapped read; for handles held in static finals, inline this call's body instead.
     *
     * @param handle      a handle from {@link #map}
     * @param vc          the address of the base struct
     * @param ts          the address of the clock's basetime slot
     * @param testCounter the counter value for the test flavour (ignored by the others)
     * @return the clock's ns, or {@link #FALLBACK}
     */
    public static long invoke(MethodHandle handle, long vc, long ts, long testCounter) {
        return invoke(handle, vc, ts, testCounter, 0);
    }

    /**
     * Calls a mapped read with the vclock argument ({@link VclockCode}).
     *
     * @param handle      a handle from {@link #map}
     * @param vc          the address of the base struct
     * @param ts          the address of the clock's basetime slot
     * @param testCounter the counter value for the test flavour (ignored by the others)
     * @param vclock      the vclock pages and which of them may be read (0: none)
     * @return the clock's ns, or {@link #FALLBACK}
     */
    public static long invoke(MethodHandle handle, long vc, long ts, long testCounter, long vclock) {
        try {
            return (long) handle.invokeExact(vc, ts, testCounter, vclock);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }
}
