package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * The layouts of the kernel's vDSO time data that this reader knows, per generation (struct vdso_data and
 * struct vdso_clock in include/vdso/datapage.h of each release), and their recognition by content: a layout is accepted for a
 * page only when every structural check holds for both bases, never because of the kernel's version.
 *
 * <p>Offsets are of one base's struct (struct vdso_data up to 6.14, struct vdso_clock from 6.15); the
 * array of bases starts at {@link #dataOffset()} in page 0 and base 1 (CS_RAW) sits {@link #stride()}
 * bytes after base 0 (CS_HRES_COARSE).
 */
public enum VdsoLayout {
    /** x86_64 5.3-6.9: struct vdso_data at +128, 240 bytes, no max_cycles. */
    X86_VDSO_DATA_5_3("x86_64 vdso_data (5.3-6.9)", VdsoAlgorithm.X86_LEGACY, 128, 240, -1, 16, 24, 28, 32),
    /** x86_64 6.10-6.12: max_cycles inserted (CONFIG_GENERIC_VDSO_OVERFLOW_PROTECT), still at +128. */
    X86_VDSO_DATA_6_10("x86_64 vdso_data with max_cycles (6.10-6.12)", VdsoAlgorithm.X86_OVERFLOW, 128, 248, 16, 24, 32,
            36, 40),
    /** x86_64 6.13-6.14: the same struct, now at +0 (vdso_time_data in 6.14). */
    X86_VDSO_DATA_6_13("x86_64 vdso_data with max_cycles at +0 (6.13-6.14)", VdsoAlgorithm.X86_OVERFLOW, 0, 248, 16, 24,
            32, 36, 40),
    /** x86_64 6.15+: struct vdso_clock (232 bytes) in struct vdso_time_data at +0. */
    X86_VDSO_CLOCK_6_15("x86_64 vdso_clock (6.15+)", VdsoAlgorithm.X86_OVERFLOW, 0, 232, 16, 24, 32, 36, 40),
    /** arm64 5.3-6.14: struct vdso_data at +0, 240 bytes, 56-bit mask. */
    ARM64_VDSO_DATA_5_3("arm64 vdso_data (5.3-6.14)", VdsoAlgorithm.ARM64_GENERIC, 0, 240, -1, 16, 24, 28, 32),
    /** arm64 6.15+: struct vdso_clock (224 bytes) at +0. */
    ARM64_VDSO_CLOCK_6_15("arm64 vdso_clock (6.15+)", VdsoAlgorithm.ARM64_GENERIC, 0, 224, -1, 16, 24, 28, 32);

    /** VDSO_CLOCKMODE_TIMENS: page 0 of a task in a time namespace carries it with seq 1. */
    public static final int CLOCKMODE_TIMENS = Integer.MAX_VALUE;
    /** x86 VDSO_CLOCKMODE_TSC; arm64 VDSO_CLOCKMODE_ARCHTIMER (which modes mean the counter: Arch). */
    public static final int CLOCKMODE_COUNTER = 1;
    /** arm64 VDSO_CLOCKMODE_ARCHTIMER_NOCOMPAT: the counter, for 64-bit tasks. */
    public static final int CLOCKMODE_COUNTER_NOCOMPAT = 2;
    /** Bytes of one basetime slot: {u64 sec; u64 nsec}. */
    public static final int TIMESTAMP_BYTES = 16;
    /** The arm64 counter mask (VDSO_PRECISION_MASK, 56 bits). */
    public static final long ARM64_MASK = Arch.AARCH64.vdsoMask();

    /** Base 0 of the kernel's array of bases: the steered clocks (VDSO_HRES) and COARSE. */
    public static final int CS_HRES_COARSE = 0;
    /** Base 1: MONOTONIC_RAW, never steered (VDSO_RAW). */
    public static final int CS_RAW = 1;
    public static final int SEQ = 0;
    public static final int CLOCK_MODE = 4;
    public static final int CYCLE_LAST = 8;

    private final String description;
    private final VdsoAlgorithm algorithm;
    private final int dataOffset;
    private final int stride;
    private final int maxCycles;
    private final int mask;
    private final int mult;
    private final int shift;
    private final int basetime;

    VdsoLayout(String description, VdsoAlgorithm algorithm, int dataOffset, int stride, int maxCycles, int mask,
            int mult, int shift, int basetime) {
        this.description = description;
        this.algorithm = algorithm;
        this.dataOffset = dataOffset;
        this.stride = stride;
        this.maxCycles = maxCycles;
        this.mask = mask;
        this.mult = mult;
        this.shift = shift;
        this.basetime = basetime;
    }

    /** What the layout is, and which kernels have it. */
    public String description() {
        return description;
    }

    /** {@return the architecture whose kernels have this layout: its algorithm's} */
    public Arch arch() {
        return Arch.of(algorithm.arch().machine());
    }

    /** {@return how this layout's kernels compute a clock from the counter} */
    public VdsoAlgorithm algorithm() {
        return algorithm;
    }

    /** Offset of base 0 in page 0. */
    public int dataOffset() {
        return dataOffset;
    }

    /** Bytes from one base to the next. */
    public int stride() {
        return stride;
    }

    /** Offset of max_cycles in a base, or -1 where the layout has none (then no 128-bit path). */
    public int maxCyclesOffset() {
        return maxCycles;
    }

    public int maskOffset() {
        return mask;
    }

    public int multOffset() {
        return mult;
    }

    public int shiftOffset() {
        return shift;
    }

    /** Offset of basetime[0] in a base; basetime[clock id] is {@link #TIMESTAMP_BYTES} per id further. */
    public int basetimeOffset() {
        return basetime;
    }

    /**
     * Offset in page 0 of aux_clock_data[0] (struct vdso_time_data, 6.17+: 8 AUX bases after the two clock
     * bases), or -1 where the layout has none. On 6.15 and 6.16 the same offset holds the timezone instead: a
     * reader uses it only for AUX clocks that clock_gettime reads, which exist from 6.17 on.
     *
     * @return the offset, or -1
     */
    public int auxOffset() {
        return this == X86_VDSO_CLOCK_6_15 || this == ARM64_VDSO_CLOCK_6_15 ? dataOffset + 2 * stride : -1;
    }

    /**
     * Offset in page 0 of AUX clock {@code index}'s base (lib/vdso/gettimeofday.c do_aux: its basetime[0],
     * VDSO_BASE_AUX, is the clock's).
     *
     * @param index 0..7 (CLOCK_AUX + index)
     * @return the offset
     */
    public long auxBaseOffset(int index) {
        return auxOffset() + (long) index * stride;
    }

    /** {@return the base the kernel computes {@code clock} from: {@link #CS_RAW} for the raw line, else {@link #CS_HRES_COARSE}} */
    public static int base(CounterClock clock) {
        return clock.raw() ? CS_RAW : CS_HRES_COARSE;
    }

    /** Offset in page 0 of base {@code base} (0: CS_HRES_COARSE, 1: CS_RAW). */
    public long baseOffset(int base) {
        return dataOffset + (long) base * stride;
    }

    /** Offset in page 0 of basetime[{@code slot}] of base {@code base}. */
    public long timestampOffset(int base, int slot) {
        return baseOffset(base) + basetime + (long) slot * TIMESTAMP_BYTES;
    }

    /** What the kernel's clocks read just before recognition, in whole seconds, to check the page against. */
    public record Expected(long realtimeSec, long monotonicSec, long rawSec) {}

    /**
     * The layouts of {@code arch}, newest first, that fit {@code page} (page 0 of [vvar], at least one page
     * long), with why each other one does not. Reads only page 0.
     */
    public static Recognition recognise(MemorySegment page, Arch arch, Expected expected) {
        List<VdsoLayout> fit = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        VdsoLayout[] all = values();
        for (int i = all.length - 1; i >= 0; i--) {
            VdsoLayout l = all[i];
            if (l.arch() != arch) {
                continue;
            }
            String why = l.mismatch(page, expected);
            if (why == null) {
                fit.add(l);
            } else {
                rejected.add(l.name() + ": " + why);
            }
        }
        return new Recognition(List.copyOf(fit), List.copyOf(rejected));
    }

    /** The outcome of {@link #recognise}. */
    public record Recognition(List<VdsoLayout> fitting, List<String> rejected) {
        /** The one layout that fits, or null when none or several do. */
        public VdsoLayout layout() {
            return fitting.size() == 1 ? fitting.getFirst() : null;
        }
    }

    /** Null when this layout fits the page, else the first check that fails. */
    String mismatch(MemorySegment page, Expected expected) {
        long need = baseOffset(2);
        if (page.byteSize() < need) {
            return "page too small (" + page.byteSize() + " < " + need + " bytes)";
        }
        int seq0 = i32(page, baseOffset(0) + SEQ);
        int seq1 = i32(page, baseOffset(1) + SEQ);
        int mode0 = i32(page, baseOffset(0) + CLOCK_MODE);
        int mode1 = i32(page, baseOffset(1) + CLOCK_MODE);
        if ((seq0 & 1) != 0 && mode0 == CLOCKMODE_TIMENS) {
            return "a time-namespace page (seq odd, clock_mode VDSO_CLOCKMODE_TIMENS)";
        }
        if (seq0 != seq1) {
            return "the two bases' seq differ (" + Integer.toUnsignedString(seq0) + ", "
                    + Integer.toUnsignedString(seq1) + ")";
        }
        if ((seq0 & 1) != 0) {
            return "seq is odd (" + Integer.toUnsignedString(seq0) + ")";
        }
        if (mode0 != mode1) {
            return "the two bases' clock_mode differ (" + mode0 + ", " + mode1 + ")";
        }
        if (mode0 < 0 || mode0 > 3) {
            return "clock_mode " + mode0 + " is no known mode";
        }
        for (int base = 0; base < 2; base++) {
            long b = baseOffset(base);
            long m = page.get(ValueLayout.JAVA_LONG_UNALIGNED, b + mask);
            long expectedMask = arch().vdsoMask();
            if (m != expectedMask) {
                return "base " + base + " mask 0x" + Long.toHexString(m) + " (expected 0x"
                        + Long.toHexString(expectedMask) + ")";
            }
            int mu = i32(page, b + mult);
            int sh = i32(page, b + shift);
            if (mu == 0 || sh < 1 || sh > 32) {
                return "base " + base + " mult " + Integer.toUnsignedString(mu) + " shift " + sh + " out of range";
            }
            if (maxCycles >= 0) {
                long mc = page.get(ValueLayout.JAVA_LONG_UNALIGNED, b + maxCycles);
                if (mc <= 0) {
                    return "base " + base + " max_cycles " + Long.toUnsignedString(mc) + " out of range";
                }
            }
        }
        int sh0 = i32(page, baseOffset(0) + shift);
        String t = checkSlot(page, 0, 0, sh0, expected.realtimeSec(), "REALTIME");
        if (t == null) {
            t = checkSlot(page, 0, 1, sh0, expected.monotonicSec(), "MONOTONIC");
        }
        if (t == null) {
            t = checkSlot(page, 1, 4, i32(page, baseOffset(1) + shift), expected.rawSec(), "MONOTONIC_RAW");
        }
        return t;
    }

    private String checkSlot(MemorySegment page, int base, int slot, int sh, long expectSec, String name) {
        long sec = page.get(ValueLayout.JAVA_LONG_UNALIGNED, timestampOffset(base, slot));
        long nsec = page.get(ValueLayout.JAVA_LONG_UNALIGNED, timestampOffset(base, slot) + 8);
        if (Long.compareUnsigned(nsec >>> sh, 1_000_000_000L) >= 0) {
            return name + " basetime nsec " + (nsec >>> sh) + " is not below 10^9";
        }
        // The kernel updates basetime every tick: its seconds lag the clock by at most a few ticks, more
        // only after a long NOHZ idle. 10 s covers a loaded machine's reads; garbage misses by far more.
        if (Math.abs(expectSec - sec) > 10) {
            return name + " basetime " + sec + " s, the kernel reads " + expectSec + " s";
        }
        return null;
    }

    private static int i32(MemorySegment page, long offset) {
        return page.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
    }
}
