package org.timekeeping4j.arch;

/**
 * How a layout's kernels turn a counter value into a clock's nanoseconds (lib/vdso/gettimeofday.c, and the
 * architecture's forms of it): every layout ({@code vdso.VdsoLayout}) has one. {@code vdso.VdsoFormula.ns} computes each in Java; the
 * machine code of each is mapped by {@code machine.VdsoStub.map} ({@code machine.X86VdsoCode},
 * {@code machine.VclockCode}, {@code machine.Arm64VdsoCode}, with their assembly sources beside them).
 */
public enum VdsoAlgorithm {
    /**
     * x86_64 5.3-6.9: vdso_calc_delta's x86 form, no max_cycles: a counter at or behind cycle_last counts
     * as delta 0, the mask is ignored ({@code machine.X86VdsoCode}).
     */
    X86_LEGACY(Arch.X86_64, 1 << 1),
    /**
     * x86_64 6.10+: the counter &amp; S64_MAX, max_cycles and the 128-bit path past it, the value at
     * cycle_last for a counter behind it ({@code CONFIG_GENERIC_VDSO_OVERFLOW_PROTECT}); its machine code
     * also reads the pvclock and hvclock pages ({@code machine.VclockCode}).
     */
    X86_OVERFLOW(Arch.X86_64, 1 << 1 | 1 << 2 | 1 << 3),
    /**
     * arm64 5.3+: the generic vdso_calc_ns, {@code ((cycles - cycle_last) & mask) * mult + nsec >> shift}
     * with the 56-bit mask and no max_cycles ({@code machine.Arm64VdsoCode}).
     */
    ARM64_GENERIC(Arch.AARCH64, 1 << 1 | 1 << 2);

    private final Arch arch;
    private final int modesRead;

    VdsoAlgorithm(Arch arch, int modesRead) {
        this.arch = arch;
        this.modesRead = modesRead;
    }

    /**
     * The clock_modes the machine code reads itself, as a bit set (bit m: clock_mode m): x86 TSC (1; 6.10+ also
     * PVCLOCK 2 and HVCLOCK 3, where their pages may be read), arm64 ARCHTIMER (1) and ARCHTIMER_NOCOMPAT (2,
     * which the 64-bit vDSO reads). Any other mode is clock_gettime's.
     *
     * @return the bit set
     */
    public int modesRead() {
        return modesRead;
    }

    /** {@return the architecture whose kernels compute this} */
    public Arch arch() {
        return arch;
    }
}
