package org.timekeeping4j.machine;

import org.timekeeping4j.arch.VdsoAlgorithm;

/**
 * The arm64 machine code of the kernel-data read ({@link VdsoAlgorithm#ARM64_GENERIC}, every arm64
 * layout), byte for byte, in the shape of {@link X86VdsoCode}: {@link #code} returns the
 * function with a {@link Flavour}'s counter read in its slot. One function under
 * AAPCS64 (arguments in x0, x1, x2; result in x0; x0-x17 free to clobber; x18, the platform register, and
 * the callee-saved x19-x29 untouched; no stack frame, so no use of x30 but ret), called through an FFM
 * downcall:
 * <pre>
 *   int64_t vdso_read(const void *vc, const void *ts, uint64_t test_counter)
 * </pre>
 * {@code vc} is the kernel's per-base struct (struct vdso_data, 240 bytes, 5.7-6.14; struct vdso_clock,
 * 224 bytes, 6.15+: the same offsets on arm64: seq u32 @0, clock_mode s32 @4, cycle_last u64 @8, mask u64
 * @16, mult u32 @24, shift u32 @28, basetime[] @32), {@code ts} its {@code basetime[clk]} ({u64 sec; u64
 * nsec}, nsec in ns &lt;&lt; shift). The result is {@code sec * 1_000_000_000 + ns}, u64 wrapping, with the
 * generic vDSO's {@code ns = (((cycles - cycle_last) & mask) * mult + nsec) >> shift} (u64 wrapping: arm64
 * has no max_cycles), or {@code Long.MIN_VALUE} ("call clock_gettime instead") when clock_mode is neither
 * 1 (ARCHTIMER) nor 2 (ARCHTIMER_NOCOMPAT: usable by 64-bit tasks), when an odd seq comes with clock_mode
 * 0x7fffffff (a time-namespace page: seq stays 1 there), or when seq stayed odd for 2^20 looks.
 *
 * <p><b>Not for arm64 5.3-5.6 pages.</b> Their clock_mode meant "use the syscall" (0 = read the counter,
 * 1 = syscall); this code reads the counter on 1. The caller must fall back on those kernels.
 *
 * <p>Its source, with the instructions and their comments, is arm64-vdso-read.S next to this file:
 * AssemblySourcesTest reassembles it for every slot and compares the words (GNU as,
 * binutils-aarch64-linux-gnu), and Arm64VdsoCodeTest checks them against an independent encoding. The slot at
 * 0x20-0x27 holds the counter read; the variants differ there only, NOPs before the real instruction, so no
 * branch offset changes: see {@link Flavour}.
 *
 * <p><b>Memory ordering, decided here</b> (the kernel's do_hres and update_vsyscall; Arm's model lets loads,
 * and loads and system-register reads, complete out of program order):
 * <ul>
 * <li>first seq load, then {@code dmb ishld}, then clock_mode and the parameters: the barrier orders the seq
 *     load before every later load, pairing with the writer's smp_wmb between its first seq increment and
 *     the parameter stores. The odd-path clock_mode load has no barrier: it is a hint for falling back, and
 *     a stale value only costs another look.</li>
 * <li>{@code isb} before {@code mrs cntvct_el0}: without it the counter may be read before earlier
 *     instructions (the seq load, the clock_mode check) complete, i.e. from before the state the reader
 *     then validates (the kernel's __arch_get_hw_counter). With ECV, cntvctss_el0 is self-synchronised and
 *     needs no isb (the slot then has a nop).</li>
 * <li>the counter read before the seq re-read: a system-register read is not a memory access, so
 *     {@code dmb ishld} alone does not order it. The kernel's arch_counter_enforce_ordering makes a load
 *     whose address depends on the counter value ({@code eor; add sp; ldr xzr}); that load cannot be
 *     performed before the counter is read, and the second {@code dmb ishld} orders it before the re-read.
 *     So a reader whose re-read still sees the first seq read its counter while the state it computed with
 *     was published, pairing with the writer's smp_wmb before the closing seq increment. The parameter
 *     loads need no dependency: the first barrier bounds them from below, the second from above.</li>
 * <li>the dependency is on {@code sp}, not on {@code vc}, as in the kernel: the stack line is in cache, and
 *     the parameter loads, which do not wait for the counter, overlap with it.</li>
 * </ul>
 */
public final class Arm64VdsoCode {

    private Arm64VdsoCode() {}

    /** How the code reads the counter: the two instructions of its counter slot, into x5. */
    public enum Flavour {
        /** isb; mrs x5, cntvct_el0: ordered after every earlier instruction, as the kernel's vDSO reads it. */
        ISB_CNTVCT("isb;mrs cntvct_el0", 0xd5033fdf, 0xd53be045),
        /**
         * nop; mrs x5, cntvctss_el0 (op2 = 6): the self-synchronised view, ordered without an isb; FEAT_ECV only
         * (HWCAP2_ECV: it is undefined, SIGILL, elsewhere).
         */
        CNTVCTSS("mrs cntvctss_el0", 0xd503201f, 0xd53be0c5),
        /** nop; mrs x5, cntvct_el0: unordered (may be read before earlier loads complete). */
        CNTVCT("mrs cntvct_el0", 0xd503201f, 0xd53be045),
        /** nop; mov x5, x2 (orr x5, xzr, x2): the third argument instead of a counter, tests only. */
        TEST("test counter", 0xd503201f, 0xaa0203e5);

        private final String instructions;
        private final int first;
        private final int second;

        Flavour(String instructions, int first, int second) {
            this.instructions = instructions;
            this.first = first;
            this.second = second;
        }

        /**
         * The instructions that read the counter.
         *
         * @return the instructions, e.g. "isb;mrs cntvct_el0"
         */
        public String instructions() {
            return instructions;
        }
    }

    /** Byte offset of the counter-read slot (two instructions). */
    static final int SLOT = 0x20;

    // The words before and after the slot.
    private static final int[] BEFORE_SLOT = {
        0x52a00209, 0xb9400003, 0x37000343, 0xd50339bf, 0xb9400404, 0x51000484, 0x7100049f, 0x540003a8,
    };
    private static final int[] AFTER_SLOT = {
        0xca0500a6, 0x8b2663e6, 0xf94000df, 0xa940a007, 0x29432c0a, 0xa940342c, 0xcb0700a5, 0x8a0800a5,
        0x9b0a34a5, 0x9acb24a5, 0xd50339bf, 0xb940000e, 0x6b0301df, 0x54fffd41, 0xd299400f, 0xf2a7734f,
        0x9b0f1580, 0xd65f03c0, 0xb9400404, 0x12b00006, 0x6b06009f, 0x540000a0, 0x71000529, 0x54000060,
        0xd503203f, 0x17ffffde, 0xd2f00000, 0xd65f03c0,
    };

    /**
     * The code with {@code flavour}'s counter read in its slot.
     *
     * @param flavour the counter read to put in the slot
     * @return the function's machine code, a fresh array
     */
    public static byte[] code(Flavour flavour) {
        return build(new int[] {flavour.first, flavour.second});
    }

    /** The whole function around a two-instruction slot. */
    static byte[] build(int[] slot) {
        if (slot.length != 2) {
            throw new IllegalArgumentException("the counter slot is two instructions, got " + slot.length);
        }
        int[] all = new int[BEFORE_SLOT.length + 2 + AFTER_SLOT.length];
        System.arraycopy(BEFORE_SLOT, 0, all, 0, BEFORE_SLOT.length);
        System.arraycopy(slot, 0, all, BEFORE_SLOT.length, 2);
        System.arraycopy(AFTER_SLOT, 0, all, BEFORE_SLOT.length + 2, AFTER_SLOT.length);
        return MachineCode.arm64(all);
    }
}
