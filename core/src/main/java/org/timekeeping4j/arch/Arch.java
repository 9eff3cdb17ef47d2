package org.timekeeping4j.arch;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.linux.Platform;

/**
 * The architectures whose counter timekeeping4j reads, one constant each, holding every fact of the library's
 * reads that differs between them: the machine name, the kernel's name and width of the counter, the CPU check
 * that lets the counter follow the kernel's clocks, the order of the counter reads, and how the kernel's vDSO data
 * describes the counter. Code elsewhere asks the constant instead of "x86 or arm64?", so that no architecture can
 * fall into another's branch. Its instruction sequences are {@link CounterRead}s and its kernels' vDSO arithmetic a
 * {@link VdsoAlgorithm}, each tagged with its constant; the clock_gettime system call's number is
 * {@code linux.LibC}'s, the one fact the raw bindings below this package need.
 *
 * <p>An architecture without a constant (riscv64, s390x, loongarch64, ...): {@link #of} returns null, exact mode
 * falls back to the kernel's clocks with {@link #noDescriptor}'s one-line reason.
 *
 * <h2>What a new architecture provides</h2>
 * <ol>
 *   <li>A constant here: the machine name, the kernel's clocksource for its counter, the counter's width, and the
 *       bodies of the abstract methods.</li>
 *   <li>Its {@link CounterRead}s (at least an ordered and an unordered read) and their machine code in
 *       {@code machine.MachineCode}, with a holder in {@code machine.Stubs}.</li>
 *   <li>Its vDSO data layouts ({@code vdso.VdsoLayout}) and their {@link VdsoAlgorithm}, with the read's machine
 *       code in {@code machine}; without them exact mode refuses ("no known vDSO data layout").</li>
 *   <li>{@code linux.Platform} must accept its libc ABI, and {@code linux.LibC} know its syscall number.</li>
 * </ol>
 */
public enum Arch {

    /** x86_64: the TSC, read with rdtsc, lfence;rdtsc or rdtscp. */
    X86_64("x86_64", "tsc", 64) {
        @Override
        public String unfit(Set<String> flags, List<String> errata) {
            List<String> missing = Stream.of("constant_tsc", "nonstop_tsc").filter(f -> !flags.contains(f)).toList();
            return missing.isEmpty() ? null : "the CPU lacks " + String.join(" and ", missing)
                    + ": the TSC rate may change with P-states or stop in C-states";
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
        public List<CounterRead> reads(boolean ordered, Set<String> flags, long hwcap2) {
            if (!ordered) {
                return List.of(CounterRead.X86_RDTSC);
            }
            // The kernel's rdtsc_ordered() uses lfence;rdtsc only where LFENCE is known to serialise RDTSC
            // (X86_FEATURE_LFENCE_RDTSC: Intel, and AMD with the MSR bit set), else rdtscp. That feature is
            // not always visible from user space, and where it is missing lfence;rdtsc is not ordered: on an
            // AMD guest without the lfence_rdtsc flag, fast reads through lfence;rdtsc fell below a kernel
            // read made just before them, through rdtscp never (docs/PERFORMANCE.md). So rdtscp first wherever the CPU has it, lfence;rdtsc only where the kernel says
            // it is safe or nothing else exists.
            if (flags.contains("lfence_rdtsc")) {
                return flags.contains("rdtscp")
                        ? List.of(CounterRead.X86_LFENCE_RDTSC, CounterRead.X86_RDTSCP)
                        : List.of(CounterRead.X86_LFENCE_RDTSC);
            }
            return flags.contains("rdtscp")
                    ? List.of(CounterRead.X86_RDTSCP, CounterRead.X86_LFENCE_RDTSC)
                    : List.of(CounterRead.X86_LFENCE_RDTSC);
        }
    },

    /** aarch64: the generic timer's virtual counter, read with mrs cntvct_el0 (after an isb) or cntvctss_el0. */
    AARCH64("aarch64", "arch_sys_counter", 56) {
        @Override
        public String unfit(Set<String> flags, List<String> errata) {
            return errata.isEmpty() ? null : String.join("; ", errata)
                    + ": the kernel reads the counter through a workaround and keeps its vDSO off it";
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
        public List<CounterRead> reads(boolean ordered, Set<String> flags, long hwcap2) {
            if (!ordered) {
                return List.of(CounterRead.A64_CNTVCT);
            }
            // cntvctss_el0 (FEAT_ECV) is ordered without the isb; it is undefined where HWCAP2_ECV is clear.
            return (hwcap2 & HWCAP2_ECV) != 0
                    ? List.of(CounterRead.A64_CNTVCTSS, CounterRead.A64_ISB_CNTVCT)
                    : List.of(CounterRead.A64_ISB_CNTVCT);
        }
    };

    /** HWCAP2_ECV: FEAT_ECV, so the self-synchronised view cntvctss_el0 exists. */
    public static final long HWCAP2_ECV = 1L << 19;

    /**
     * This machine's architecture, or null: another architecture, or a platform the bindings refuse. A static
     * final: the machine code's tests of it fold.
     */
    public static final Arch HERE = of(Platform.ARCH);

    private final String machine;
    private final String kernelClocksource;
    private final int counterBits;

    Arch(String machine, String kernelClocksource, int counterBits) {
        this.machine = machine;
        this.kernelClocksource = kernelClocksource;
        this.counterBits = counterBits;
    }

    /**
     * The architecture of a machine name.
     *
     * @param machine the kernel's machine name (uname -m, as {@code linux.Platform} names the JVM's os.arch)
     * @return its constant, or null where timekeeping4j has none
     */
    public static Arch of(String machine) {
        for (Arch a : values()) {
            if (a.machine.equals(machine)) {
                return a;
            }
        }
        return null;
    }

    /**
     * Why the counter is not read on {@code machine}: one line naming it and the architectures that have a
     * descriptor.
     *
     * @param machine the machine name, or null where the platform is refused altogether
     * @return the reason
     */
    public static String noDescriptor(String machine) {
        if (machine == null) {
            return "unsupported platform";
        }
        return "no counter descriptor for " + machine + " (timekeeping4j reads the counter on "
                + Arrays.stream(values()).map(Arch::machine).collect(Collectors.joining(" and "))
                + "): the kernel's clocks serve";
    }

    /** {@return the kernel's machine name (uname -m): "x86_64", "aarch64"} */
    public String machine() {
        return machine;
    }

    /** {@return the kernel clocksource that reads this counter ("tsc", "arch_sys_counter")} */
    public String kernelClocksource() {
        return kernelClocksource;
    }

    /** {@return the counter's width in bits as the kernel treats it (the TSC 64, the arm64 generic timer 56)} */
    public int counterBits() {
        return counterBits;
    }

    /** {@return the clock_gettime system call's number, for syscall(2) (the raw bindings' table, below this)} */
    public long sysClockGettime() {
        return LibC.sysClockGettime(machine);
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

    /**
     * The counter reads to try, best first: the ordered reads, or the one unordered read.
     *
     * @param ordered true for the ordered reads, false for the unordered one
     * @param flags   the CPU's flags as /proc/cpuinfo lists them (x86)
     * @param hwcap2  the kernel's AT_HWCAP2 (arm64)
     * @return the reads, best first
     */
    public abstract List<CounterRead> reads(boolean ordered, Set<String> flags, long hwcap2);
}
