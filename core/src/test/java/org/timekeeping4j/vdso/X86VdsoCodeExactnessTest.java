package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandle;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.X86VdsoCode;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.linux.Platform;

/**
 * The x86 machine code of exact mode (its test flavour: the same bytes with the counter taken from an
 * argument) and the Java formula against {@link VdsoReference}, over synthetic pages of every x86 layout and
 * counter values on every path: fast, at max_cycles, the 128-bit path past it, behind cycle_last, bit 63.
 */
class X86VdsoCodeExactnessTest {

    private static final int CASES = 200_000;

    /** The algorithms of the x86_64 layouts. */
    static final VdsoAlgorithm[] X86_ALGORITHMS = {VdsoAlgorithm.X86_LEGACY,
        VdsoAlgorithm.X86_OVERFLOW};

    static void assumeX86() {
        assumeTrue("x86_64".equals(Platform.ARCH), "the x86_64 machine code runs on x86_64 only; this is "
                + Platform.ARCH + " (the arm64 code has its own test)");
    }

    private static MethodHandle testCode(VdsoAlgorithm a) {
        Stubs.Mapped m = VdsoStub.map(a, X86VdsoCode.Flavour.TEST);
        assertThat(m.failure()).isNull();
        return m.handle();
    }

    /** A plausible base: TSC 1-5 GHz, shift 16-32, state up to 2^62 cycles, basetime around now. */
    static VdsoReference.Base randomBase(SplittableRandom r, long mask) {
        int shift = r.nextInt(16, 33);
        double hz = r.nextDouble(1e9, 5e9);
        long mult = Math.min(0xffff_ffffL, Math.round(Math.scalb(1e9, shift) / hz));
        long cycleLast = r.nextLong(0, 1L << 62) & mask;
        long maxCycles = Math.min(Long.MAX_VALUE / mult, r.nextLong(1L << 30, 1L << 44));
        long sec = r.nextLong(0, 4_000_000_000L);
        long nsec = r.nextLong(0, 1_000_000_000L) << shift | r.nextLong(0, 1L << shift);
        return new VdsoReference.Base(cycleLast, maxCycles, mask, mult, shift, sec, nsec);
    }

    /** Counter values around the interesting edges of {@code b}. */
    static long counterFor(SplittableRandom r, VdsoReference.Base b) {
        return switch (r.nextInt(9)) {
            case 0 -> b.cycleLast();
            case 1 -> b.cycleLast() + r.nextLong(1, 1L << 20);
            case 2 -> b.cycleLast() + b.maxCycles();
            case 3 -> b.cycleLast() + b.maxCycles() + 1;
            case 4 -> b.cycleLast() + b.maxCycles() + r.nextLong(1, 1L << 50); // the 128-bit path
            case 5 -> b.cycleLast() - r.nextLong(1, 1L << 20);                 // behind cycle_last
            case 6 -> r.nextLong();                                              // anywhere, bit 63 too
            case 7 -> b.cycleLast() | Long.MIN_VALUE;                            // bit 63 set
            default -> b.cycleLast() + r.nextLong(0, b.maxCycles());
        };
    }

    @Test
    void theOverflowLayoutsCodeShouldEqualTheReferenceOnEveryPath() throws Throwable {
        assumeX86();
        check(VdsoLayout.X86_VDSO_CLOCK_6_15, VdsoAlgorithm.X86_OVERFLOW, 1);
        check(VdsoLayout.X86_VDSO_DATA_6_10, VdsoAlgorithm.X86_OVERFLOW, 2);
        check(VdsoLayout.X86_VDSO_DATA_6_13, VdsoAlgorithm.X86_OVERFLOW, 3);
    }

    @Test
    void theLegacyLayoutsCodeShouldEqualTheReference() throws Throwable {
        assumeX86();
        check(VdsoLayout.X86_VDSO_DATA_5_3, VdsoAlgorithm.X86_LEGACY, 4);
    }

    private static void check(VdsoLayout layout, VdsoAlgorithm algorithm, long seed) throws Throwable {
        MethodHandle code = testCode(algorithm);
        SplittableRandom r = new SplittableRandom(seed);
        try (Arena arena = Arena.ofConfined()) {
            SyntheticPage p = new SyntheticPage(layout, arena);
            VdsoNanos conv = new VdsoNanos();
            for (int i = 0; i < CASES; i++) {
                VdsoReference.Base b = randomBase(r, -1L);
                if (r.nextInt(10) == 0) { // a counter past 2^63: the kernel's S64_MAX mask matters
                    b = new VdsoReference.Base(b.cycleLast() | Long.MIN_VALUE, b.maxCycles(), b.mask(), b.mult(),
                            b.shift(), b.sec(), b.nsec());
                }
                int base = r.nextInt(2);
                int slot = base == 1 ? 4 : new int[] {0, 1, 7, 11}[r.nextInt(4)];
                p.base(base, 2 * r.nextInt(1 << 20), VdsoLayout.CLOCKMODE_COUNTER, b, slot);
                long counter = counterFor(r, b);
                long expected = algorithm == VdsoAlgorithm.X86_OVERFLOW ? VdsoReference.x86Overflow(b, counter)
                        : VdsoReference.x86Legacy(b, counter);
                long actual = (long) code.invokeExact(p.baseAddress(base), p.timestampAddress(base, slot), counter, 0L);
                assertThat(actual).as("%s case %d: %s at counter %s", layout, i, b, Long.toUnsignedString(counter))
                        .isEqualTo(expected);
                // The Java formula agrees wherever it claims exactness (at or after cycle_last).
                assertThat(VdsoFormula.convert(layout, p.page, layout.baseOffset(base), slot, counter, conv)).isTrue();
                if (conv.exact()) {
                    assertThat(conv.nanos()).as("VdsoFormula, %s case %d", layout, i).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void theCodeShouldFallBackWhereTheVdsoWould() throws Throwable {
        assumeX86();
        for (VdsoAlgorithm a : X86_ALGORITHMS) {
            MethodHandle code = testCode(a);
            VdsoLayout layout = a == VdsoAlgorithm.X86_OVERFLOW ? VdsoLayout.X86_VDSO_CLOCK_6_15
                    : VdsoLayout.X86_VDSO_DATA_5_3;
            try (Arena arena = Arena.ofConfined()) {
                SyntheticPage p = new SyntheticPage(layout, arena);
                VdsoReference.Base b = randomBase(new SplittableRandom(9), -1L);
                p.base(0, 42, VdsoLayout.CLOCKMODE_COUNTER, b, 1);
                long vc = p.baseAddress(0);
                long ts = p.timestampAddress(0, 1);
                assertThat((long) code.invokeExact(vc, ts, b.cycleLast(), 0L)).isNotEqualTo(VdsoStub.FALLBACK);
                for (int mode : new int[] {0, 2, 3}) { // NONE, PVCLOCK, HVCLOCK
                    p.mode(0, mode);
                    assertThat((long) code.invokeExact(vc, ts, b.cycleLast(), 0L)).as("clock_mode %d", mode)
                            .isEqualTo(VdsoStub.FALLBACK);
                }
                p.mode(0, VdsoLayout.CLOCKMODE_TIMENS); // a time-namespace page: seq 1 for good
                p.seq(0, 1);
                assertThat((long) code.invokeExact(vc, ts, b.cycleLast(), 0L)).as("timens").isEqualTo(VdsoStub.FALLBACK);
                p.mode(0, VdsoLayout.CLOCKMODE_COUNTER); // a seq stuck odd: bounded spin, then the kernel
                p.seq(0, 43);
                assertThat((long) code.invokeExact(vc, ts, b.cycleLast(), 0L)).as("stuck odd").isEqualTo(VdsoStub.FALLBACK);
            }
        }
    }

    @Test
    void everyCounterFlavourShouldFillTheSameSlot() {
        for (VdsoAlgorithm a : X86_ALGORITHMS) {
            int len = X86VdsoCode.code(a, X86VdsoCode.Flavour.RDTSCP).length;
            for (X86VdsoCode.Flavour f : X86VdsoCode.Flavour.values()) {
                byte[] code = X86VdsoCode.code(a, f);
                assertThat(code.length).isEqualTo(len);
                byte[] rdtscp = X86VdsoCode.code(a, X86VdsoCode.Flavour.RDTSCP);
                for (int i = 0; i < len; i++) {
                    boolean inSlot = i >= X86VdsoCode.slotOffset(a) && i < X86VdsoCode.slotOffset(a) + 10;
                    if (!inSlot) {
                        assertThat(code[i]).as("%s %s byte %d", a, f, i).isEqualTo(rdtscp[i]);
                    }
                }
            }
        }
    }
}
