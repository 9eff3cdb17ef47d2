package org.timekeeping4j.clocksource;

import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.machine.Stubs;

/** The ways a hardware counter can be read, with their ordering guarantee (the machine code's view: arch.CounterRead). */
public enum CounterFlavour {
    /** x86 rdtsc: cheapest, may execute before earlier instructions. */
    X86_RDTSC(CounterRead.X86_RDTSC),
    /** x86 lfence;rdtsc: ordered after earlier loads; what the vDSO uses. */
    X86_LFENCE_RDTSC(CounterRead.X86_LFENCE_RDTSC),
    /** x86 rdtscp: ordered, and returns TSC_AUX (the CPU number on Linux). */
    X86_RDTSCP(CounterRead.X86_RDTSCP),
    /** arm64 mrs cntvct_el0 without a barrier. */
    A64_CNTVCT(CounterRead.A64_CNTVCT),
    /** arm64 isb;mrs cntvct_el0: ordered, as the kernel's vDSO reads it. */
    A64_ISB_CNTVCT(CounterRead.A64_ISB_CNTVCT),
    /** arm64 mrs cntvctss_el0 (FEAT_ECV, HWCAP2_ECV): self-synchronised, so ordered without an isb. */
    A64_CNTVCTSS(CounterRead.A64_CNTVCTSS);

    /** The machine code's view of this read (arch.CounterRead): the same name. */
    private final CounterRead read;

    CounterFlavour(CounterRead read) {
        this.read = read;
    }

    /** The flavour of a read: the constant of the same name. */
    static CounterFlavour of(CounterRead read) {
        return valueOf(read.name());
    }

    /** {@return the architecture this flavour runs on} */
    public CounterArch arch() {
        return CounterArch.of(read.arch().machine());
    }

    /**
     * Whether the read is ordered after earlier loads (a barrier or a serialising read).
     *
     * @return true for the ordered flavours
     */
    public boolean isOrdered() {
        return read.isOrdered();
    }

    /** {@return the instruction sequence, e.g. "lfence;rdtsc"} */
    public String instructions() {
        return read.instructions();
    }

    /** The stub for this flavour, mapped on first use, or why it cannot be. */
    Stubs.Mapped mapped() {
        return switch (this) {
            case X86_RDTSC -> Stubs.Rdtsc.MAPPED;
            case X86_LFENCE_RDTSC -> Stubs.LfenceRdtsc.MAPPED;
            case X86_RDTSCP -> Stubs.Rdtscp.MAPPED;
            case A64_CNTVCT -> Stubs.Cntvct.MAPPED;
            case A64_ISB_CNTVCT -> Stubs.IsbCntvct.MAPPED;
            case A64_CNTVCTSS -> Stubs.Cntvctss.MAPPED;
        };
    }
}
