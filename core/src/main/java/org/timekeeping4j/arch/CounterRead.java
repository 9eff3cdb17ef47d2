package org.timekeeping4j.arch;

/**
 * The instruction sequences that read a hardware counter (the flavours of reading it), with their ordering
 * guarantee: what the machine code maps ({@code machine.Stubs}, one holder each) and what the counter selection
 * chooses among ({@code arch.Arch#reads}, the simulation module's HardwareCounter, one subclass each).
 */
public enum CounterRead {
    /** x86 rdtsc: cheapest, may execute before earlier instructions. */
    X86_RDTSC(Arch.X86_64, false, "rdtsc"),
    /** x86 lfence;rdtsc: ordered after earlier loads; what the vDSO uses. */
    X86_LFENCE_RDTSC(Arch.X86_64, true, "lfence;rdtsc"),
    /** x86 rdtscp: ordered, and returns TSC_AUX (the CPU number on Linux). */
    X86_RDTSCP(Arch.X86_64, true, "rdtscp"),
    /** arm64 mrs cntvct_el0 without a barrier. */
    A64_CNTVCT(Arch.AARCH64, false, "mrs cntvct_el0"),
    /** arm64 isb;mrs cntvct_el0: ordered, as the kernel's vDSO reads it. */
    A64_ISB_CNTVCT(Arch.AARCH64, true, "isb;mrs cntvct_el0"),
    /** arm64 mrs cntvctss_el0 (FEAT_ECV, HWCAP2_ECV): self-synchronised, so ordered without an isb. */
    A64_CNTVCTSS(Arch.AARCH64, true, "mrs cntvctss_el0");

    private final Arch arch;
    private final boolean ordered;
    private final String instructions;

    CounterRead(Arch arch, boolean ordered, String instructions) {
        this.arch = arch;
        this.ordered = ordered;
        this.instructions = instructions;
    }

    /** {@return the architecture this read runs on} */
    public Arch arch() {
        return arch;
    }

    /** {@return whether the read is ordered after earlier loads (a barrier or a serialising read)} */
    public boolean isOrdered() {
        return ordered;
    }

    /** {@return the instruction sequence, e.g. "lfence;rdtsc"} */
    public String instructions() {
        return instructions;
    }
}
