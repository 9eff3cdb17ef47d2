package org.timekeeping4j.simulation.counter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.Stubs;

/**
 * What the counter selection asks of this machine beyond {@link Arch}'s facts: the counter frequency the platform
 * states without privilege (x86 CPUID, arm64 cntfrq_el0, both read through core's stubs), the arm64 arch-timer
 * errata and AT_HWCAP2. No library read asks: exact mode takes the kernel's own calibration.
 */
final class CounterFacts {

    private CounterFacts() {}

    /** The frequency {@code arch}'s platform states without privilege, if any. */
    static Optional<Frequency> statedFrequency(Arch arch) {
        return arch == Arch.X86_64 ? x86Frequency() : arch == Arch.AARCH64 ? armFrequency() : Optional.empty();
    }

    /** This machine's arch-timer errata (arm64, see {@link Arm64Facts}); empty elsewhere. */
    static List<String> counterErrata(Arch arch) {
        return arch == Arch.AARCH64 ? Arm64Facts.find(Path.of("/")) : List.of();
    }

    /** {@return this process's AT_HWCAP2 (arm64: HWCAP2_ECV says cntvctss_el0 exists), 0 where absent} */
    static long hwcap2() {
        return Arm64Facts.auxv(Path.of("/proc/self/auxv"), Arm64Facts.AT_HWCAP2);
    }

    /** cntfrq_el0: the frequency firmware programmed, which the kernel uses as is. */
    static Optional<Frequency> armFrequency() {
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
