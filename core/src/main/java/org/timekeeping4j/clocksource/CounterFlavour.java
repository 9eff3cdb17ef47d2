package org.timekeeping4j.clocksource;

import org.timekeeping4j.machine.Stubs;

/** The ways a hardware counter can be read, with their ordering guarantee. */
public enum CounterFlavour {
    /** x86 rdtsc: cheapest, may execute before earlier instructions. */
    X86_RDTSC(CounterArch.X86_64, false, "rdtsc"),
    /** x86 lfence;rdtsc: ordered after earlier loads; what the vDSO uses. */
    X86_LFENCE_RDTSC(CounterArch.X86_64, true, "lfence;rdtsc"),
    /** x86 rdtscp: ordered, and returns TSC_AUX (the CPU number on Linux). */
    X86_RDTSCP(CounterArch.X86_64, true, "rdtscp"),
    /** arm64 mrs cntvct_el0 without a barrier. */
    A64_CNTVCT(CounterArch.AARCH64, false, "mrs cntvct_el0"),
    /** arm64 isb;mrs cntvct_el0: ordered, as the kernel's vDSO reads it. */
    A64_ISB_CNTVCT(CounterArch.AARCH64, true, "isb;mrs cntvct_el0"),
    /** arm64 mrs cntvctss_el0 (FEAT_ECV, HWCAP2_ECV): self-synchronised, so ordered without an isb. */
    A64_CNTVCTSS(CounterArch.AARCH64, true, "mrs cntvctss_el0");

    private final CounterArch arch;
    private final boolean ordered;
    private final String instructions;

    CounterFlavour(CounterArch arch, boolean ordered, String instructions) {
        this.arch = arch;
        this.ordered = ordered;
        this.instructions = instructions;
    }

    /** {@return the architecture this flavour runs on} */
    public CounterArch arch() {
        return arch;
    }

    /**
     * Whether the read is ordered after earlier loads (a barrier or a serialising read).
     *
     * @return true for the ordered flavours
     */
    public boolean isOrdered() {
        return ordered;
    }

    /** {@return the instruction sequence, e.g. "lfence;rdtsc"} */
    public String instructions() {
        return instructions;
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
