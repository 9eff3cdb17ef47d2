package org.timekeeping4j.arch;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.timekeeping4j.linux.Platform;

/**
 * The architectures whose counter timekeeping4j reads, as the machine code needs them: the machine name and
 * the order of the counter reads. The counter descriptor above the machine code is
 * {@code clocksource.CounterArch}, one constant per constant here, with the same name.
 */
public enum Arch {

    /** x86_64: the TSC, read with rdtsc, lfence;rdtsc or rdtscp. */
    X86_64("x86_64") {
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
    AARCH64("aarch64") {
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

    Arch(String machine) {
        this.machine = machine;
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
