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
 * <p>The counter is read after the first seq load, as the vDSO reads it (do_hres: vdso_read_begin, then
 * __arch_get_hw_counter). It was read before seq once, to keep the seq load's latency out of the ordered read;
 * that order is wrong: a reader delayed between the counter read and the seq load (preempted, descheduled) can
 * meet a kernel update published in between whose cycle_last lies before its counter value, and then applies the
 * new parameters to a counter value older than the update. The kernel keeps each update continuous at the moment
 * it was computed, not at cycle_last, so after a rate change the new line differs from the old one before that
 * moment by the time in between multiplied by the rate change: a read 1,855 ns below the clock_gettime read made
 * just before it, once, under a 0.5% tick change with the reader descheduled for 423 us (VclockHostTest, kvm-clock).
 *
 * <p><b>Layout 5.3-6.9 ({@link VdsoAlgorithm#X86_LEGACY}: vdso_data without max_cycles; mask +16, mult +24,
 * shift +28):</b> x86-vdso-read.S. The same frame (seq, the counter slot, then clock_mode); between
 * clock_mode and the seq re-check, vdso_calc_delta's x86 form (the mask is ignored, a counter at or behind
 * cycle_last counts as delta 0).
 *
 * <p><b>Memory ordering, decided here.</b> x86 keeps loads in program order (TSO), so the loads of
 * clock_mode, cycle_last, max_cycles, mult, shift and basetime, all after the first seq load and before the
 * seq re-load in program order, see one state whenever the two seq loads are equal and even: this pairs with
 * update_vsyscall's seq increments around its stores (kernel/time/vsyscall.c: vdso_write_begin, smp_wmb, the
 * stores, smp_wmb, vdso_write_end). The kernel's own reader adds only compiler barriers here
 * (include/vdso/helpers.h: smp_rmb is barrier() on x86). The ordered counter read (rdtscp, lfence;rdtsc) comes
 * after the first seq load and is not performed before it completes: an update published before that load has
 * its cycle_last, and the moment it was computed, before the counter value, so the state the loads see is the
 * kernel's state at that counter value; one published later changes seq and sends the read back to its start.
 * The unordered flavour (rdtsc) may read the counter before the seq load completes, by tens of ns: the value
 * then meets the state of just before, off by at most that time times a rate change (below 1 ns).
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

    private static final String LEGACY_CODE = "49 89 d3 41 b9 00 00 10 00 44 8b 07 41 f7 c0 01 00 00 00 75 45 0f 1f 80 00 00 00 00 0f 01 f9 83 7f 04 01 "
            + "75 45 48 c1 e2 20 48 09 d0 48 8b 4f 08 31 d2 48 29 c8 48 0f 46 c2 8b 4f 18 48 0f af c1 48 03 46 08 8b 4f "
            + "1c 48 d3 e8 48 69 16 00 ca 9a 3b 48 01 d0 44 3b 07 75 b0 c3 81 7f 04 ff ff ff 7f 74 07 f3 90 41 ff c9 75 "
            + "9f 48 b8 00 00 00 00 00 00 00 80 c3";
    /** Where the counter slot starts in the X86_LEGACY code (after the two moves on entry). */
    private static final int LEGACY_SLOT = 0x15;

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
