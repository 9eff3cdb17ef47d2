package org.timekeeping4j.device;

import static org.timekeeping4j.device.VmClockLayout.COUNTER_ARM_VCNT;
import static org.timekeeping4j.device.VmClockLayout.COUNTER_X86_TSC;

import java.lang.invoke.MethodHandle;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.Stubs;

/** The counter a VMClock page is read at: this architecture's counter_id, and its ordered read. */
final class VmClockCounter {

    private VmClockCounter() {}

    /** This architecture's counter_id, or -1. */
    static final int COUNTER_HERE = Arch.HERE == Arch.X86_64 ? COUNTER_X86_TSC
            : Arch.HERE == Arch.AARCH64 ? COUNTER_ARM_VCNT : -1;
    /**
     * The ordered counter read the driver's get_cycles() is, chosen as exact mode chooses it (the counter
     * selection's first ordered flavour): on x86_64 rdtscp, or lfence;rdtsc only where the kernel says LFENCE
     * serialises RDTSC (the lfence_rdtsc flag; without it lfence;rdtsc is not ordered, docs/PERFORMANCE.md); on
     * aarch64 isb;mrs cntvct_el0. Ordered after the seq_count load above it, so the counter is read inside the
     * window the seqlock validates. A static final handle: the JIT inlines the downcall.
     */
    static final Stubs.Mapped STUB = counterStub();
    static final MethodHandle HANDLE = STUB.handle();

    private static Stubs.Mapped counterStub() {
        if (Arch.HERE == Arch.X86_64) {
            CounterRead first = Arch.X86_64.reads(true, KernelInfo.cpuFlags(), 0).getFirst();
            return first == CounterRead.X86_RDTSCP ? Stubs.RdtscpNoAux.MAPPED : Stubs.LfenceRdtsc.MAPPED;
        }
        return Arch.HERE == Arch.AARCH64 ? Stubs.IsbCntvct.MAPPED
                : new Stubs.Mapped(null, "no counter read for this architecture");
    }

    /** The same ordered counter read, for a writer of test pages (the value now, 0 where none maps). */
    static long now() {
        return HANDLE == null ? 0 : read();
    }

    static long read() {
        try {
            return (long) HANDLE.invokeExact();
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
    }
}
