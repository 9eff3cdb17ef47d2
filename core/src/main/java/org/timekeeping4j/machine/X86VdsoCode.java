package org.timekeeping4j.machine;

import org.timekeeping4j.arch.VdsoAlgorithm;

/**
 * Machine code of the x86_64 kernel-data read: the vDSO's do_hres over the kernel's own vDSO time data, one
 * function per {@link VdsoAlgorithm} of x86_64 ({@link #code}; the X86_OVERFLOW code is
 * {@link VclockCode}'s: the TSC path plus the PVCLOCK and HVCLOCK modes), as
 * {@code int64_t vdso_read(const struct vdso_clock *vc, const struct vdso_timestamp *ts, uint64_t test_counter)}.
 * It returns {@code sec * 10^9 + ns} (u64 arithmetic) for the clock whose basetime
 * slot is {@code ts}, exactly as lib/vdso/gettimeofday.c computes sec and ns before vdso_set_timespec
 * (splitting ns into seconds afterwards does not change the sum), or {@code Long.MIN_VALUE} when the
 * vDSO would fall back to the system call: clock_mode not TSC, a time-namespace page (seq odd and
 * clock_mode VDSO_CLOCKMODE_TIMENS), or seq odd for 2^20 spins (a writer that never finishes: a stuck or
 * foreign page). Sources: x86-vdso-read.S (X86_LEGACY) and x86-vclock-read.S (X86_OVERFLOW) next to this
 * file, which AssemblySourcesTest reassembles for every slot and compares with these bytes
 * (docs/bench/vdso-stub/build.sh -d prints every variant). The arm64 read has the same shape:
 * {@link Arm64VdsoCode}.
 *
 * <p><b>The counter slot.</b> Bytes {@code slot .. slot + 10} ({@link #slotOffset}) read the counter into
 * edx:eax (rcx may be clobbered): NOP padding first, then rdtscp, lfence;rdtsc or rdtsc, so every flavour has
 * the same length and no branch offset depends on it; the test flavour takes its counter from the third argument (saved
 * in r11 on entry) so tests can compare the rest of the code with an independent reference for any
 * counter value. The padding sits before the counter read, off the value's dependency chain.
 *
 * <p><b>Layout 6.10+ ({@link VdsoAlgorithm#X86_OVERFLOW}: vdso_data 6.10-6.14 and vdso_clock 6.15+,
 * max_cycles at +16):</b> x86-vclock-read.S holds the instructions with their comments (this class's comment
 * does not repeat them: the source is what the test compares).
 * The fast path leaves out the kernel's {@code & S64_MAX} on the counter: the path's chain after the counter
 * read is one instruction shorter, and the result is the same. With the counter's bit 63 clear the two
 * deltas are equal; with it set and cycle_last below 2^63 the unmasked delta exceeds max_cycles and the slow
 * path masks as the kernel does (label 3 there); with both above 2^63 the kernel takes its 128-bit path with the same
 * delta, which equals the 64-bit product here because the kernel bounds max_cycles so that max_cycles *
 * (mult + maxadj) fits 64 bits (clocks_calc_max_nsecs), with far more room than basetime.nsec needs.
 *
 * <p>The counter is read first, before seq and clock_mode: an ordered read (rdtscp, lfence;rdtsc) waits for
 * every older load to complete, so loads placed before it would add their latency to every read (measured on
 * an earlier seqlock stub of this library). The vDSO reads seq first; the order here changes only
 * which state a counter value can meet, and both outcomes are the vDSO's own: see the ordering note below.
 *
 * <p><b>Layout 5.3-6.9 ({@link VdsoAlgorithm#X86_LEGACY}: vdso_data without max_cycles; mask +16, mult +24,
 * shift +28):</b> x86-vdso-read.S. The same frame (the counter slot, then seq and clock_mode); between
 * clock_mode and the seq re-check, vdso_calc_delta's x86 form (the mask is ignored, a counter at or behind
 * cycle_last counts as delta 0).
 *
 * <p><b>Memory ordering, decided here.</b> x86 keeps loads in program order (TSO), so the loads of
 * clock_mode, cycle_last, max_cycles, mult, shift and basetime, all after the first seq load and before the
 * seq re-load in program order, see one state whenever the two seq loads are equal and even: this pairs with
 * update_vsyscall's seq increments around its stores (kernel/time/vsyscall.c: vdso_write_begin, smp_wmb, the
 * stores, smp_wmb, vdso_write_end). The kernel's own reader adds only compiler barriers here
 * (include/vdso/helpers.h: smp_rmb is barrier() on x86). The counter is read before the first seq load;
 * rdtscp (and lfence;rdtsc) lets later loads start before it reads the TSC, so the counter value may be
 * older or newer than the state the loads see. Newer is the vDSO's usual case (seq, then counter). Older means
 * a kernel update published after the counter was read, whose cycle_last can lie beyond the counter: a negative
 * delta, which this code turns into the value at cycle_last exactly as the vDSO does for a TSC behind
 * cycle_last; that value lies between the counter read and the seq load, so a read still lands inside the
 * bracket of kernel reads around it and never behind an earlier read of the same thread. A seq that changed
 * sends the read back to the counter. The unordered flavour (rdtsc) adds only that the counter may be read
 * before earlier instructions of the caller complete.
 */
public final class X86VdsoCode {

    private X86VdsoCode() {}

    /** How the code reads the counter: the 10 bytes of its counter slot. */
    public enum Flavour {
        /** rdtscp: ordered after every earlier load. */
        RDTSCP("rdtscp", "0f 1f 80 00 00 00 00 0f 01 f9"),
        /** lfence;rdtsc: ordered where the kernel marks LFENCE dispatch-serialising. */
        LFENCE_RDTSC("lfence;rdtsc", "0f 1f 44 00 00 0f ae e8 0f 31"),
        /** rdtsc: unordered (may be read before earlier loads complete). */
        RDTSC("rdtsc", "0f 1f 80 00 00 00 00 90 0f 31"),
        /** The third argument instead of a counter: tests only. */
        TEST("test counter", "4c 89 d8 4c 89 da 48 c1 ea 20");

        private final String instructions;
        private final byte[] slot;

        Flavour(String instructions, String slot) {
            this.instructions = instructions;
            this.slot = MachineCode.x86(slot);
        }

        /**
         * The instructions that read the counter.
         *
         * @return the instructions, e.g. "rdtscp"
         */
        public String instructions() {
            return instructions;
        }
    }

    /** Length of the counter slot in bytes. */
    static final int SLOT_BYTES = 10;

    private static final String LEGACY_CODE = "49 89 d3 41 b9 00 00 10 00 0f 1f 80 00 00 00 00 0f 01 f9 44 8b 07 41 f7 c0 01 00 00 00 75 3b 83 7f"
            + " 04 01 75 45 48 c1 e2 20 48 09 d0 48 8b 4f 08 31 d2 48 29 c8 48 0f 46 c2 8b 4f 18 48 0f af c1 48 03"
            + " 46 08 8b 4f 1c 48 d3 e8 48 69 16 00 ca 9a 3b 48 01 d0 44 3b 07 75 b0 c3 81 7f 04 ff ff ff 7f 74 07"
            + " f3 90 41 ff c9 75 9f 48 b8 00 00 00 00 00 00 00 80 c3";
    /** Where the counter slot starts in the X86_LEGACY code (after the two moves on entry). */
    private static final int LEGACY_SLOT = 0x09;

    /**
     * The code for {@code algorithm} with {@code flavour}'s counter read in its slot.
     *
     * @param algorithm an x86_64 layout's algorithm
     * @param flavour   the counter read to put in the slot
     * @return the function's machine code, a fresh array
     * @throws IllegalArgumentException for another architecture's algorithm
     */
    public static byte[] code(VdsoAlgorithm algorithm, Flavour flavour) {
        return switch (algorithm) {
            case X86_LEGACY -> {
                byte[] code = MachineCode.x86(LEGACY_CODE);
                System.arraycopy(flavour.slot, 0, code, LEGACY_SLOT, SLOT_BYTES);
                yield code;
            }
            case X86_OVERFLOW -> VclockCode.x86(flavour); // the same TSC path, with the vclock modes
            case ARM64_GENERIC -> throw notX86(algorithm);
        };
    }

    /**
     * Where the counter slot starts in {@code algorithm}'s code.
     *
     * @param algorithm an x86_64 layout's algorithm
     * @return the byte offset of the 10-byte counter slot
     * @throws IllegalArgumentException for another architecture's algorithm
     */
    public static int slotOffset(VdsoAlgorithm algorithm) {
        return switch (algorithm) {
            case X86_LEGACY -> LEGACY_SLOT;
            case X86_OVERFLOW -> VclockCode.slotOffset();
            case ARM64_GENERIC -> throw notX86(algorithm);
        };
    }

    private static IllegalArgumentException notX86(VdsoAlgorithm algorithm) {
        return new IllegalArgumentException(algorithm + " is " + algorithm.arch().machine()
                + " code (Arm64VdsoCode), not x86_64");
    }

    /** The slot's bytes for {@code flavour} (a copy). */
    static byte[] slot(Flavour flavour) {
        return flavour.slot.clone();
    }
}
