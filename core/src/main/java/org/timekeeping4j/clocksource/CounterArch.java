package org.timekeeping4j.clocksource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.VdsoStub;

/**
 * The architectures whose counter timekeeping4j reads, one constant each, holding every fact that differs
 * between them (the machine code's own view, the name and the reads' order, is {@code arch.Arch}, below the
 * machine package; the syscall numbers are {@code linux.LibC}'s): the kernel's name for the counter, the CPU feature checks, the read flavours and their order,
 * the frequency source, the raw syscall numbers and the vDSO's view of the counter. Code elsewhere asks the
 * descriptor instead of "x86 or arm64?", so that no architecture can fall into another's branch.
 *
 * <p>An architecture without a constant (riscv64, s390x, loongarch64, ...) has no descriptor: {@link #of} returns
 * null, the counter selection and exact mode fall back to the kernel's clocks with {@link #noDescriptor}'s
 * one-line reason, and the raw clock_gettime syscall refuses (its number is {@code linux.LibC}'s, per architecture).
 *
 * <h2>What a new architecture provides</h2>
 * <ol>
 *   <li>A constant here: its {@code arch.Arch} (the machine name, uname -m, and the order of its reads, which
 *       {@link #flavours} returns), the kernel's clocksource for its counter, the counter's width (its clock_gettime
 *       syscall number is {@code linux.LibC.sysClockGettime}'s); and the bodies of the abstract
 *       methods: the CPU feature check ({@link #unfit}), the stated
 *       frequency, the vDSO facts ({@link #vdsoCountsWith}, {@link #vdsoMask}, {@link #vdsoRefusal}); the
 *       kernel-data read's machine code and the counter reads exact mode uses are in the machine package
 *       ({@code VdsoStub}, not exported: they hand out method handles over machine code).</li>
 *   <li>Its stub bytes: each {@link CounterRead} (at least an ordered and an unordered read), its machine code
 *       in {@code machine.MachineCode}, a holder in {@code machine.Stubs} and a HardwareCounter subclass in the
 *       simulation module
 *       (the static final handle in each is what lets the JIT inline the downcall; a table lookup would not).</li>
 *   <li>Its vDSO data layouts (vdso.VdsoLayout) where exact mode should serve; without them exact mode
 *       refuses ("no known vDSO data layout") and the counter selection still works.</li>
 * </ol>
 * {@code linux.Platform} must also accept the architecture's libc ABI (LP64, the generic Linux constants).
 */
public enum CounterArch {

    /** x86_64: the TSC, read with rdtsc, lfence;rdtsc or rdtscp. */
    X86_64(Arch.X86_64, "tsc", 64) {

        @Override
        public String unfit(Set<String> flags, List<String> errata) {
            List<String> missing = Stream.of("constant_tsc", "nonstop_tsc").filter(f -> !flags.contains(f)).toList();
            return missing.isEmpty() ? null : "the CPU lacks " + String.join(" and ", missing)
                    + ": the TSC rate may change with P-states or stop in C-states";
        }

        @Override
        public Optional<Frequency> statedFrequency() {
            return x86Frequency();
        }

        @Override
        public List<String> counterErrata() {
            return List.of(); // the invariant-TSC flags are x86's check (unfit)
        }

        @Override
        public boolean vdsoCountsWith(int clockMode) {
            return clockMode == 1; // VDSO_CLOCKMODE_TSC (2, 3: pvclock, hvclock: another clock)
        }

        @Override
        public long vdsoMask() {
            return -1L; // U64_MAX: the TSC is not masked
        }

        @Override
        public String vdsoRefusal(String kernelRelease) {
            return null;
        }

        @Override
        public String vdsoOrderedRead() {
            return VdsoStub.orderedFlavour().instructions();
        }


    },

    /** aarch64: the generic timer's virtual counter, read with mrs cntvct_el0 (after an isb) or cntvctss_el0. */
    AARCH64(Arch.AARCH64, "arch_sys_counter", 56) {

        @Override
        public String unfit(Set<String> flags, List<String> errata) {
            return errata.isEmpty() ? null : String.join("; ", errata)
                    + ": the kernel reads the counter through a workaround and keeps its vDSO off it";
        }

        @Override
        public Optional<Frequency> statedFrequency() {
            return armFrequency();
        }

        @Override
        public List<String> counterErrata() {
            return Arm64Facts.find(Path.of("/"));
        }

        @Override
        public boolean vdsoCountsWith(int clockMode) {
            // VDSO_CLOCKMODE_ARCHTIMER, and ARCHTIMER_NOCOMPAT (the counter for 64-bit tasks, erratum 1418040)
            return clockMode == 1 || clockMode == 2;
        }

        @Override
        public long vdsoMask() {
            return (1L << 56) - 1; // VDSO_PRECISION_MASK
        }

        @Override
        public String vdsoRefusal(String kernelRelease) {
            // 5.3-5.6 arm64 stored "use the syscall" in clock_mode (0 = the counter): the opposite meaning.
            return keepsModeMeaning(kernelRelease) ? null
                    : "arm64 kernels before 5.7 give clock_mode the opposite meaning; exact mode refuses " + kernelRelease;
        }

        @Override
        public String vdsoOrderedRead() {
            return CounterRead.A64_ISB_CNTVCT.instructions();
        }
    };

    /**
     * This machine's descriptor, or null: another architecture, or a platform the bindings refuse. Public for the
     * machine-code layer's static finals (null is no {@link Optional}); {@link #here()} says the same.
     */
    public static final CounterArch HERE = of(Platform.ARCH);

    /** The machine code's view of this architecture (its name, its reads' order): the same name. */
    private final Arch arch;
    private final String kernelClocksource;
    private final int counterBits;

    CounterArch(Arch arch, String kernelClocksource, int counterBits) {
        this.arch = arch;
        this.kernelClocksource = kernelClocksource;
        this.counterBits = counterBits;
    }

    /**
     * The descriptor of an architecture.
     *
     * @param machine the kernel's machine name (uname -m, as {@code linux.Platform} names the JVM's os.arch:
     *                "x86_64", not "amd64")
     * @return its descriptor, or null where timekeeping4j has none (the kernel's clocks serve there)
     */
    public static CounterArch of(String machine) {
        for (CounterArch a : values()) {
            if (a.arch.machine().equals(machine)) {
                return a;
            }
        }
        return null;
    }

    /**
     * This machine's descriptor.
     *
     * @return the descriptor, or empty: another architecture, or a platform the bindings refuse
     */
    public static Optional<CounterArch> here() {
        return Optional.ofNullable(HERE);
    }

    /**
     * Why the counter is not read on {@code machine}: one line naming it and the architectures that have a
     * descriptor.
     *
     * @param machine the machine name, or null where the platform is refused altogether
     * @return the reason
     */
    public static String noDescriptor(String machine) {
        return Arch.noDescriptor(machine);
    }

    /** {@return the kernel's machine name (uname -m): "x86_64", "aarch64"} */
    public String machine() {
        return arch.machine();
    }

    /** {@return the kernel clocksource that reads this counter ("tsc", "arch_sys_counter")} */
    public String kernelClocksource() {
        return kernelClocksource;
    }

    /** {@return the counter's width in bits as the kernel treats it (the TSC 64, the arm64 generic timer 56)} */
    public int counterBits() {
        return counterBits;
    }

    /** {@return the clock_gettime system call's number, for syscall(2)} */
    public long sysClockGettime() {
        return LibC.sysClockGettime(arch.machine());
    }

    /**
     * Null where the CPU lets the counter follow the kernel's clocks (x86: an invariant TSC; arm64: no erratum
     * for which the kernel keeps its vDSO off the counter), else the rejection's reason (one line).
     *
     * @param flags  the CPU's flags as /proc/cpuinfo lists them (x86)
     * @param errata the arch-timer errata for which the kernel keeps its vDSO off the counter (arm64)
     * @return null, or why the counter cannot follow the kernel's clocks
     */
    public abstract String unfit(Set<String> flags, List<String> errata);

    /**
     * The counter reads to try, best first: the ordered reads, or the one unordered read.
     *
     * @param ordered true for the ordered reads, false for the unordered one
     * @param flags   the CPU's flags as /proc/cpuinfo lists them (x86)
     * @param hwcap2  the kernel's AT_HWCAP2 (arm64)
     * @return the reads, best first
     */
    public List<CounterRead> reads(boolean ordered, Set<String> flags, long hwcap2) {
        return arch.reads(ordered, flags, hwcap2);
    }

    /** The frequency the platform states without privilege, if any. */
    public abstract Optional<Frequency> statedFrequency();

    /** This machine's arch-timer errata (arm64, see {@link Arm64Facts}); empty elsewhere. */
    public abstract List<String> counterErrata();

    /** {@return this process's AT_HWCAP2 (arm64: HWCAP2_ECV says cntvctss_el0 exists), 0 where absent} */
    public static long hwcap2() {
        return Arm64Facts.auxv(Path.of("/proc/self/auxv"), Arm64Facts.AT_HWCAP2);
    }

    /**
     * Whether the vDSO data's clock_mode says the kernel's vDSO reads this counter itself.
     *
     * @param clockMode the clock_mode field of the vDSO data
     * @return true for the modes that mean this counter
     */
    public abstract boolean vdsoCountsWith(int clockMode);

    /**
     * The mask the kernel stores in the vDSO data for this counter.
     *
     * @return the mask: all ones for a 64-bit counter
     */
    public abstract long vdsoMask();

    /**
     * Null where exact mode may read this kernel's vDSO data, else why not (one line).
     *
     * @param kernelRelease uname's release, e.g. "6.8.0-45-generic"
     * @return null, or the refusal
     */
    public abstract String vdsoRefusal(String kernelRelease);

    /** {@return the ordered counter read of the vDSO-data code, e.g. "rdtscp"} */
    public abstract String vdsoOrderedRead();

    /** arm64: the release is 5.7 or later (a vendor string that cannot be parsed counts as too old). */
    static boolean keepsModeMeaning(String release) {
        String[] v = release.split("[.-]");
        try {
            int major = Integer.parseInt(v[0]);
            int minor = Integer.parseInt(v[1]);
            return major > 5 || major == 5 && minor >= 7;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** cntfrq_el0: the frequency firmware programmed, which the kernel uses as is. */
    public static Optional<Frequency> armFrequency() {
        if (!Stubs.Cntfrq.MAPPED.ok()) {
            return Optional.empty();
        }
        try {
            long hz = (long) Stubs.Cntfrq.HANDLE.invokeExact();
            return hz > 0 ? Optional.of(new Frequency(hz, 0, "cntfrq_el0")) : Optional.empty();
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }

    /** CPUID leaf 0x15 (TSC/crystal ratio), else the hypervisor timing leaf 0x40000010 (TSC kHz). */
    static Optional<Frequency> x86Frequency() {
        if (!Stubs.Cpuid.MAPPED.ok()) {
            return Optional.empty();
        }
        int[] basic = cpuid(0);
        if (Integer.compareUnsigned(basic[0], 0x15) >= 0) {
            int[] r = cpuid(0x15);
            long denominator = Integer.toUnsignedLong(r[0]);
            long numerator = Integer.toUnsignedLong(r[1]);
            long crystalHz = Integer.toUnsignedLong(r[2]);
            if (denominator != 0 && numerator != 0 && crystalHz != 0) {
                double hz = (double) crystalHz * numerator / denominator;
                return Optional.of(new Frequency(hz, 1e9 / hz, "CPUID 0x15 (crystal " + crystalHz + " Hz x "
                        + numerator + "/" + denominator + ")"));
            }
        }
        boolean hypervisor = (cpuid(1)[2] & (1 << 31)) != 0;
        if (hypervisor && Integer.compareUnsigned(cpuid(0x4000_0000)[0], 0x4000_0010) >= 0) {
            long khz = Integer.toUnsignedLong(cpuid(0x4000_0010)[0]);
            if (khz != 0) {
                double hz = khz * 1000.0;
                // Stated in whole kHz: half a kHz of rounding.
                return Optional.of(new Frequency(hz, 500.0 / hz * 1e9, "CPUID 0x40000010 (hypervisor, "
                        + khz + " kHz)"));
            }
        }
        return Optional.empty();
    }

    /** eax, ebx, ecx, edx of a CPUID leaf (subleaf 0). */
    static int[] cpuid(int leaf) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(16, 4);
            Stubs.Cpuid.HANDLE.invokeExact(leaf, 0, out);
            return out.toArray(ValueLayout.JAVA_INT);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }
}
