package org.timekeeping4j.machine;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.Platform;

/**
 * Arm64VdsoCode: its encoding, checked on any machine against an encoder written from the Arm ARM's field
 * layouts (independent of the assembler that produced the bytes); and its behaviour, on aarch64 only (an
 * emulated JVM is enough: scripts/arm64.sh), over synthetic vDSO pages in native memory, against a
 * BigInteger reference of the generic vDSO's arithmetic.
 */
class Arm64VdsoCodeTest {

    private static final long MASK56 = 0x00ff_ffff_ffff_ffffL;
    private static final FunctionDescriptor READ = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final int TIMENS = 0x7fff_ffff;

    // ---- encoding (any architecture) -------------------------------------------------------------------

    // Encoders for the instruction classes used, from the Arm ARM (DDI 0487) field layouts.
    private static int movz(int sf, int hw, int imm16, int rd) { return (sf << 31) | 0x52800000 | (hw << 21) | (imm16 << 5) | rd; }
    private static int movk(int sf, int hw, int imm16, int rd) { return (sf << 31) | 0x72800000 | (hw << 21) | (imm16 << 5) | rd; }
    private static int movn(int sf, int hw, int imm16, int rd) { return (sf << 31) | 0x12800000 | (hw << 21) | (imm16 << 5) | rd; }
    /** LDR (immediate, unsigned offset): size 10 = W, 11 = X; imm12 scaled by the access size. */
    private static int ldr(int size, int rt, int rn, int offset) {
        return (size << 30) | 0x39400000 | ((offset >> size) << 10) | (rn << 5) | rt;
    }
    /** LDP (signed offset): opc 00 = W, 10 = X; imm7 scaled. */
    private static int ldp(int opc, int rt, int rt2, int rn, int offset) {
        int scale = opc == 2 ? 3 : 2;
        return (opc << 30) | 0x29400000 | (((offset >> scale) & 0x7f) << 15) | (rt2 << 10) | (rn << 5) | rt;
    }
    private static int subImm(int sf, int s, int rd, int rn, int imm12) { return (sf << 31) | (s << 29) | 0x51000000 | (imm12 << 10) | (rn << 5) | rd; }
    private static int subsReg(int sf, int rd, int rn, int rm) { return (sf << 31) | 0x6b000000 | (rm << 16) | (rn << 5) | rd; }
    private static int subReg(int rd, int rn, int rm) { return 0xcb000000 | (rm << 16) | (rn << 5) | rd; }
    private static int andReg(int rd, int rn, int rm) { return 0x8a000000 | (rm << 16) | (rn << 5) | rd; }
    private static int eorReg(int rd, int rn, int rm) { return 0xca000000 | (rm << 16) | (rn << 5) | rd; }
    private static int orrReg(int rd, int rn, int rm) { return 0xaa000000 | (rm << 16) | (rn << 5) | rd; }
    /** ADD (extended register), UXTX (option 011): the form that can name sp as Rn. */
    private static int addExtUxtx(int rd, int rn, int rm) { return 0x8b200000 | (rm << 16) | (0b011 << 13) | (rn << 5) | rd; }
    private static int madd(int rd, int rn, int rm, int ra) { return 0x9b000000 | (rm << 16) | (ra << 10) | (rn << 5) | rd; }
    private static int lsrv(int rd, int rn, int rm) { return 0x9ac02400 | (rm << 16) | (rn << 5) | rd; }
    private static int bcond(int from, int to, int cond) { return 0x54000000 | ((((to - from) >> 2) & 0x7ffff) << 5) | cond; }
    private static int b(int from, int to) { return 0x14000000 | (((to - from) >> 2) & 0x3ffffff); }
    private static int tbnz(int rt, int bit, int from, int to) { return 0x37000000 | (bit << 19) | ((((to - from) >> 2) & 0x3fff) << 5) | rt; }
    private static int dmbIshld() { return 0xd50330bf | (0b1001 << 8); }
    private static int hint(int op) { return 0xd503201f | (op << 5); } // 0 nop, 1 yield
    private static int isb() { return 0xd5033fdf; }
    private static int ret() { return 0xd65f03c0; }
    private static final int EQ = 0, NE = 1, HI = 8, XZR = 31, SP = 31, W = 2, X = 3;

    /** The function as documented in Arm64VdsoCode, encoded here from the fields, around {@code slot}. */
    private static int[] expected(int[] slot) {
        int retry = 0x04, odd = 0x70, fallback = 0x90;
        return new int[] {
            movz(0, 1, 0x10, 9),            // 0x00 spin budget 2^20
            ldr(W, 3, 0, 0),                // 0x04 seq
            tbnz(3, 0, 0x08, odd),
            dmbIshld(),
            ldr(W, 4, 0, 4),                // 0x10 clock_mode
            subImm(0, 0, 4, 4, 1),
            subImm(0, 1, XZR, 4, 1),        // cmp w4, #1
            bcond(0x1c, fallback, HI),
            slot[0], slot[1],               // 0x20 the counter read, into x5
            eorReg(6, 5, 5),                // 0x28
            addExtUxtx(6, SP, 6),
            ldr(X, XZR, 6, 0),              // 0x30 the dependent load
            ldp(2, 7, 8, 0, 8),             // cycle_last, mask
            ldp(0, 10, 11, 0, 24),          // mult, shift
            ldp(2, 12, 13, 1, 0),           // sec, nsec
            subReg(5, 5, 7),                // 0x40
            andReg(5, 5, 8),
            madd(5, 5, 10, 13),
            lsrv(5, 5, 11),
            dmbIshld(),                     // 0x50
            ldr(W, 14, 0, 0),
            subsReg(0, XZR, 14, 3),         // cmp w14, w3
            bcond(0x5c, retry, NE),
            movz(1, 0, 0xca00, 15),         // 0x60
            movk(1, 1, 0x3b9a, 15),
            madd(0, 12, 15, 5),
            ret(),
            ldr(W, 4, 0, 4),                // 0x70 odd
            movn(0, 1, 0x8000, 6),
            subsReg(0, XZR, 4, 6),
            bcond(0x7c, fallback, EQ),
            subImm(0, 1, 9, 9, 1),          // 0x80 subs w9, w9, #1
            bcond(0x84, fallback, EQ),
            hint(1),
            b(0x8c, retry),
            movz(1, 3, 0x8000, 0),          // 0x90 Long.MIN_VALUE
            ret(),
        };
    }

    private static int[] words(byte[] code) {
        int[] w = new int[code.length / 4];
        ByteBuffer.wrap(code).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(w);
        return w;
    }

    @Test
    void everyVariantShouldBeTheDocumentedFunctionWordForWord() {
        int[] isbCntvct = {isb(), MachineCode.mrs(3, 3, 14, 0, 2, 5)};
        int[] test = {hint(0), orrReg(5, XZR, 2)};
        int[] ecv = {hint(0), MachineCode.mrs(3, 3, 14, 0, 6, 5)};
        int[] unordered = {hint(0), MachineCode.mrs(3, 3, 14, 0, 2, 5)};
        assertThat(words(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.ISB_CNTVCT))).containsExactly(expected(isbCntvct));
        assertThat(words(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST))).containsExactly(expected(test));
        assertThat(words(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCTSS))).containsExactly(expected(ecv));
        assertThat(words(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCT))).containsExactly(expected(unordered));
        // A fresh array each time: no caller can change another's code.
        assertThat(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST)).isNotSameAs(Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        // The production slot is the counter stub's own ordered read, into x5.
        assertThat(isbCntvct[0]).isEqualTo(MachineCode.A64_ISB);
        assertThat(isbCntvct[1]).isEqualTo(MachineCode.A64_MRS_X0_CNTVCT | 5);
    }

    @Test
    void variantsShouldDifferOnlyInTheSlotAndBranchOnlyInsideTheCode() {
        byte[] p = Arm64VdsoCode.code(Arm64VdsoCode.Flavour.ISB_CNTVCT);
        for (byte[] v : new byte[][] {Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST), Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCTSS)}) {
            assertThat(v).hasSize(p.length);
            assertThat(Arrays.copyOfRange(v, 0, Arm64VdsoCode.SLOT)).containsExactly(Arrays.copyOfRange(p, 0, Arm64VdsoCode.SLOT));
            assertThat(Arrays.copyOfRange(v, Arm64VdsoCode.SLOT + 8, v.length))
                    .containsExactly(Arrays.copyOfRange(p, Arm64VdsoCode.SLOT + 8, p.length));
        }
        int[] w = words(p);
        for (int i = 0; i < w.length; i++) {
            int target = branchTarget(w[i], i * 4);
            if (target != Integer.MIN_VALUE) {
                assertThat(target).as("branch at 0x%x", i * 4).isBetween(0, p.length - 4);
                assertThat(target > Arm64VdsoCode.SLOT && target < Arm64VdsoCode.SLOT + 8)
                        .as("branch at 0x%x into the slot", i * 4).isFalse();
            }
        }
        assertThat(w[w.length - 1]).isEqualTo(ret());
    }

    /** The target of a B, B.cond or TBNZ word at {@code at}, or MIN_VALUE for any other class. */
    private static int branchTarget(int word, int at) {
        if ((word & 0xfc000000) == 0x14000000) {
            return at + ((word << 6) >> 4);
        }
        if ((word & 0xff000010) == 0x54000000) {
            return at + (((word >> 5) << 13) >> 11);
        }
        if ((word & 0x7f000000) == 0x37000000) {
            return at + (((word >> 5) << 18) >> 16);
        }
        return Integer.MIN_VALUE;
    }

    @Test
    void aBadSlotShouldBeRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Arm64VdsoCode.build(new int[] {hint(0)}))
                .hasMessage("the counter slot is two instructions, got 1");
    }

    // ---- behaviour (aarch64) ---------------------------------------------------------------------------

    private static MethodHandle map(String name, byte[] code) {
        Stubs.Mapped m = Stubs.map(name, code, READ, Arch.AARCH64);
        assumeTrue(m.ok(), "arm64 machine code runs on aarch64 only (scripts/arm64.sh runs it emulated): " + m.failure());
        return m.handle();
    }

    /** One vDSO base at {@code vc}: seq, clock_mode, cycle_last, mask, mult, shift. */
    private static void base(MemorySegment vc, int seq, int mode, long cycleLast, long mask, int mult, int shift) {
        vc.set(JAVA_INT, 0, seq);
        vc.set(JAVA_INT, 4, mode);
        vc.set(JAVA_LONG, 8, cycleLast);
        vc.set(JAVA_LONG, 16, mask);
        vc.set(JAVA_INT, 24, mult);
        vc.set(JAVA_INT, 28, shift);
    }

    private static final BigInteger TWO64 = BigInteger.ONE.shiftLeft(64);

    private static BigInteger u64(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    /** The generic vDSO's value at counter c, on BigInteger: an independent statement of the arithmetic. */
    static long reference(long c, long cycleLast, long mask, int mult, int shift, long sec, long nsec) {
        BigInteger delta = u64(c).subtract(u64(cycleLast)).mod(TWO64).and(u64(mask));
        BigInteger ns = delta.multiply(BigInteger.valueOf(Integer.toUnsignedLong(mult))).add(u64(nsec)).mod(TWO64)
                .shiftRight(shift);
        return u64(sec).multiply(BigInteger.valueOf(1_000_000_000L)).add(ns).mod(TWO64).longValue();
    }

    private static long call(MethodHandle h, MemorySegment vc, MemorySegment ts, long counter) throws Throwable {
        return (long) h.invokeExact(vc.address(), ts.address(), counter);
    }

    @Test
    void testVariantShouldMatchTheReferenceOnBothLayoutsAndEveryClock() throws Throwable {
        MethodHandle h = map("arm64 vdso read (test)", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        SplittableRandom rnd = new SplittableRandom(18);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(4096, 4096);
            for (int stride : new int[] {240, 224}) { // struct vdso_data (5.7-6.14), struct vdso_clock (6.15+)
                for (int round = 0; round < 2_000; round++) {
                    int b = round & 1; // CS_HRES_COARSE, CS_RAW
                    MemorySegment vc = page.asSlice((long) b * stride, stride);
                    long mask = rnd.nextInt(4) == 0 ? -1L : MASK56;
                    int mult = rnd.nextInt();
                    int shift = rnd.nextInt(33);
                    long cycleLast = rnd.nextLong() & mask;
                    long c = switch (rnd.nextInt(4)) {
                        case 0 -> cycleLast + rnd.nextLong(1L << 32);          // the usual: a little after
                        case 1 -> (mask - rnd.nextLong(1L << 20)) & mask;      // just before the wrap ...
                        case 2 -> cycleLast - 1 - rnd.nextLong(1L << 20);       // behind cycle_last
                        default -> rnd.nextLong();                              // anything
                    };
                    if (rnd.nextInt(4) == 1) {
                        cycleLast = mask - rnd.nextLong(1L << 20);            // ... with the counter past it
                        c = rnd.nextLong(1L << 20) | (rnd.nextBoolean() ? 0 : mask + 1);
                    }
                    base(vc, 2 * rnd.nextInt(1 << 30), 1 + rnd.nextInt(2), cycleLast, mask, mult, shift);
                    int clk = rnd.nextInt(12);
                    MemorySegment ts = vc.asSlice(32 + 16L * clk, 16);
                    long sec = rnd.nextInt(3) == 0 ? rnd.nextLong() : rnd.nextLong(1L << 34);
                    long nsec = rnd.nextLong();
                    ts.set(JAVA_LONG, 0, sec);
                    ts.set(JAVA_LONG, 8, nsec);
                    long want = reference(c, cycleLast, mask, mult, shift, sec, nsec);
                    assertThat(call(h, vc, ts, c)).as("stride %d base %d clk %d c=%x cl=%x mask=%x mult=%d shift=%d",
                            stride, b, clk, c, cycleLast, mask, mult, shift).isEqualTo(want);
                }
            }
        }
    }

    @Test
    void theMaskShouldWrapAt56BitsAndACounterBehindCycleLastGiveAHugeDelta() throws Throwable {
        MethodHandle h = map("arm64 vdso read (test)", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vc = arena.allocate(240, 64);
            MemorySegment ts = vc.asSlice(32 + 16 * 1, 16); // CLOCK_MONOTONIC
            ts.set(JAVA_LONG, 0, 7);
            ts.set(JAVA_LONG, 8, 0);
            base(vc, 4, 1, MASK56 - 9, MASK56, 1, 0);       // 1 ns per tick, no shift
            // 10 ticks later, across the 56-bit wrap: the counter reads 0 (and its bits above 56 are ignored).
            assertThat(call(h, vc, ts, 0)).isEqualTo(7_000_000_010L);
            assertThat(call(h, vc, ts, 1L << 56)).isEqualTo(7_000_000_010L);
            // One tick behind cycle_last: the generic vDSO does not clamp, the delta is mask.
            assertThat(call(h, vc, ts, MASK56 - 10)).isEqualTo(7_000_000_000L + MASK56);
        }
    }

    @Test
    void unusableModesAndTimeNamespacePagesShouldFallBack() throws Throwable {
        MethodHandle h = map("arm64 vdso read (test)", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vc = arena.allocate(224, 64);
            MemorySegment ts = vc.asSlice(32, 16);
            ts.set(JAVA_LONG, 0, 1);
            for (int mode : new int[] {0, 3, -1, TIMENS}) { // NONE, unknown, unknown, TIMENS with an even seq
                base(vc, 2, mode, 0, -1L, 1, 0);
                assertThat(call(h, vc, ts, 5)).as("clock_mode %d", mode).isEqualTo(Long.MIN_VALUE);
            }
            for (int mode : new int[] {1, 2}) {             // ARCHTIMER, ARCHTIMER_NOCOMPAT
                base(vc, 2, mode, 0, -1L, 1, 0);
                assertThat(call(h, vc, ts, 5)).as("clock_mode %d", mode).isEqualTo(1_000_000_005L);
            }
            base(vc, 1, TIMENS, 0, -1L, 1, 0);              // the timens page: seq 1 forever
            assertThat(call(h, vc, ts, 5)).isEqualTo(Long.MIN_VALUE);
            base(vc, 3, 1, 0, -1L, 1, 0);                   // a writer that never finishes: 2^20 looks, then give up
            assertThat(call(h, vc, ts, 5)).isEqualTo(Long.MIN_VALUE);
        }
    }

    @Test
    void aWriterShouldNeverBeSeenHalfWay() throws Throwable {
        MethodHandle h = map("arm64 vdso read (test)", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.TEST));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment vc = arena.allocate(240, 64);
            MemorySegment ts = vc.asSlice(32, 16);
            // Two states whose every field differs: a mix of them gives neither value.
            long[][] states = {{1000, -1L, 3, 0, 11, 5}, {2000, MASK56, 7, 1, 13, 9}}; // cycle_last mask mult shift sec nsec
            long c = 5000;
            long[] want = new long[2];
            for (int i = 0; i < 2; i++) {
                long[] s = states[i];
                want[i] = reference(c, s[0], s[1], (int) s[2], (int) s[3], s[4], s[5]);
            }
            base(vc, 0, 1, states[0][0], states[0][1], (int) states[0][2], (int) states[0][3]);
            ts.set(JAVA_LONG, 0, states[0][4]);
            ts.set(JAVA_LONG, 8, states[0][5]);
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                int seq = 0;
                for (int n = 1; !stop.get(); n++) { // the kernel's update_vsyscall: seq odd, fields, seq even
                    long[] s = states[n & 1];
                    JAVA_INT.varHandle().setRelease(vc, 0L, ++seq);   // odd, then a store-store fence:
                    java.lang.invoke.VarHandle.storeStoreFence();      // the fields after it (smp_wmb)
                    vc.set(JAVA_LONG, 8, s[0]);
                    vc.set(JAVA_LONG, 16, s[1]);
                    vc.set(JAVA_INT, 24, (int) s[2]);
                    vc.set(JAVA_INT, 28, (int) s[3]);
                    ts.set(JAVA_LONG, 0, s[4]);
                    ts.set(JAVA_LONG, 8, s[5]);
                    JAVA_INT.varHandle().setRelease(vc, 0L, ++seq);   // even, after the fields (smp_wmb)
                }
            });
            try {
                int[] seen = new int[2];
                for (int i = 0; i < 200_000; i++) {
                    long v = call(h, vc, ts, c);
                    assertThat(v).isIn(want[0], want[1], Long.MIN_VALUE);
                    if (v != Long.MIN_VALUE) {
                        seen[v == want[0] ? 0 : 1]++;
                    }
                }
                assertThat(seen[0] + seen[1]).isPositive();
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    @Test
    void productionVariantShouldReadTheCounterItself() throws Throwable {
        MethodHandle h = map("arm64 vdso read", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.ISB_CNTVCT));
        assumeTrue(Stubs.IsbCntvct.MAPPED.ok(), Stubs.IsbCntvct.MAPPED.failure());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vc = arena.allocate(240, 64);
            MemorySegment ts = vc.asSlice(32 + 16 * 4, 16); // CLOCK_MONOTONIC_RAW in its own base
            base(vc, 2, 1, 0, -1L, 1, 0);                   // value = the counter (sec 0, 1 ns per tick)
            long last = 0;
            for (int i = 0; i < 20_000; i++) {
                long c1 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
                long v = call(h, vc, ts, 0);
                long c2 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
                assertThat(v).isBetween(c1, c2).isGreaterThanOrEqualTo(last);
                last = v;
            }
            base(vc, 2, 1, 0, MASK56, 1, 0);                // the 56-bit mask applies to the hardware read
            long c1 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            long v = call(h, vc, ts, 0);
            long c2 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            assertThat(v).isBetween(c1 & MASK56, c2 & MASK56);
        }
    }

    @Test
    void ecvVariantShouldReadTheSelfSynchronisedCounterWhereTheCpuHasIt() throws Throwable {
        assumeTrue(Arch.HERE == Arch.AARCH64, "arm64 machine code runs on aarch64 only");
        long hwcap2 = auxv(26); // AT_HWCAP2
        assumeTrue((hwcap2 & (1L << 19)) != 0, "the CPU reports no FEAT_ECV (HWCAP2_ECV clear): cntvctss_el0 undefined");
        MethodHandle h = map("arm64 vdso read (ecv)", Arm64VdsoCode.code(Arm64VdsoCode.Flavour.CNTVCTSS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vc = arena.allocate(240, 64);
            base(vc, 2, 1, 0, -1L, 1, 0);
            long c1 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            long v = call(h, vc, vc.asSlice(32, 16), 0);
            long c2 = (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            assertThat(v).isBetween(c1, c2);
        }
    }

    /** An auxiliary vector entry of this process (0 if absent). */
    static long auxv(long type) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Path.of("/proc/self/auxv"))).order(ByteOrder.nativeOrder());
        while (b.remaining() >= 16) {
            long t = b.getLong();
            long v = b.getLong();
            if (t == type) {
                return v;
            }
        }
        return 0;
    }
}
