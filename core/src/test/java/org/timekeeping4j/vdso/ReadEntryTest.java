package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.Arm64VdsoCode;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.VdsoStub;

/**
 * The switch between the completing read's entries over a synthetic vDSO page: while clock_mode is one the code
 * does not read the mode-first entry comes to serve (and clock_gettime answers, inside its brackets), a mode it
 * reads brings the counter-first entry back, and the switches are bounded, ending on the counter-first entry.
 */
class ReadEntryTest {

    private static long read(ReadEntry entry, MethodHandle invoker, long vc, long ts, long clockId) throws Throwable {
        long v = (long) invoker.invokeExact(vc, ts, clockId, 0L);
        return v >= 0 ? v : entry.flagged(v);
    }

    @Test
    void theEntryShouldFollowTheModeAndStopSwitchingAtItsBound() throws Throwable {
        X86VdsoCodeExactnessTest.assumeX86();
        Stubs.Mapped counterFirst = VdsoStub.map(VdsoAlgorithm.X86_OVERFLOW, VdsoStub.orderedFlavour(), true);
        Stubs.Mapped modeFirst = VdsoStub.mapModeFirst(VdsoAlgorithm.X86_OVERFLOW, true);
        assertThat(counterFirst.failure()).isNull();
        assertThat(modeFirst.failure()).isNull();
        ReadEntry entry = new ReadEntry(counterFirst.handle(), modeFirst.handle());
        MethodHandle invoker = entry.invoker();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(4096, 4096);
            SyntheticPage page = new SyntheticPage(VdsoLayout.X86_VDSO_CLOCK_6_15, all);
            VdsoReference.Base b = VclockCodeExactnessTest.baseAround(new SplittableRandom(29), 1L << 40);
            page.base(0, 42, 0, b, 1);
            long vc = page.baseAddress(0);
            long ts = page.timestampAddress(0, 1);
            assertThat(entry.modeFirstServes()).isFalse();
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) { // clock_mode NONE: every read falls back
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = read(entry, invoker, vc, ts, 1);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("read %d: clock_gettime's value", i).isBetween(k0, k1);
            }
            assertThat(entry.modeFirstServes()).as("after %d fallbacks", ReadEntry.FLAGS_TO_SWITCH).isTrue();
            for (int i = 0; i < 10 * ReadEntry.FLAGS_TO_SWITCH; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = read(entry, invoker, vc, ts, 1);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("mode first, read %d", i).isBetween(k0, k1);
            }
            assertThat(entry.switches()).as("fallbacks through the mode-first entry are not counted").isEqualTo(1);
            page.mode(0, 1); // TSC: the code reads the counter over the synthetic page
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long v = read(entry, invoker, vc, ts, 1);
                assertThat(v / 1_000_000_000L).as("read %d: the page's time, flag stripped", i)
                        .isBetween(b.sec(), b.sec() + (1L << 24));
            }
            assertThat(entry.modeFirstServes()).as("a mode the code reads brings the counter-first entry back").isFalse();
            assertThat(entry.switches()).isEqualTo(2);
            for (int round = 0; round < 2 * ReadEntry.MAX_SWITCHES; round++) {
                page.mode(0, round % 2 == 0 ? 0 : 1);
                for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                    read(entry, invoker, vc, ts, 1);
                }
            }
            assertThat(entry.switches()).as("bounded").isEqualTo(ReadEntry.MAX_SWITCHES);
            assertThat(entry.modeFirstServes()).as("the counter-first entry serves for good").isFalse();
        }
    }

    /**
     * One clock's read with its arguments bound in the code (VdsoStub.mapBound), as a second site of the entry:
     * its reads count toward the switch the first site takes too, both sites switch together, and on a mode the
     * code reads the bound read lies between two reads with the arguments passed.
     */
    @Test
    void boundSitesShouldSwitchTogetherAndReadAsTheArgumentsRead() throws Throwable {
        X86VdsoCodeExactnessTest.assumeX86();
        VdsoAlgorithm a = VdsoAlgorithm.X86_OVERFLOW;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(4096, 4096);
            SyntheticPage page = new SyntheticPage(VdsoLayout.X86_VDSO_CLOCK_6_15, all);
            // 1 ns per TSC count from a second in the past (mult 2^24, shift 24).
            VdsoReference.Base b = new VdsoReference.Base(VdsoStub.readCounterOrdered() - 1_000_000,
                    Long.MAX_VALUE >> 24, -1L, 1L << 24, 24, 1_000_000, 0);
            page.base(0, 42, 0, b, 1);
            long vc = page.baseAddress(0);
            long ts = page.timestampAddress(0, 1);
            Stubs.Mapped cf = VdsoStub.mapBound(a, true, false, vc, ts, 1, 0);
            Stubs.Mapped mf = VdsoStub.mapBound(a, true, true, vc, ts, 1, 0);
            assertThat(cf.failure()).isNull();
            assertThat(mf.failure()).isNull();
            ReadEntry entry = new ReadEntry(
                    new MethodHandle[] {VdsoStub.map(a, VdsoStub.orderedFlavour(), true).handle(), cf.handle()},
                    new MethodHandle[] {VdsoStub.mapModeFirst(a, true).handle(), mf.handle()});
            MethodHandle generic = entry.invoker(0);
            MethodHandle bound = entry.invoker(1);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) { // clock_mode NONE: every read falls back
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = bound(entry, bound);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("bound, read %d: clock_gettime's value", i).isBetween(k0, k1);
            }
            assertThat(entry.modeFirstServes()).as("after the bound site's fallbacks").isTrue();
            for (int i = 0; i < 2 * ReadEntry.FLAGS_TO_SWITCH; i++) {
                // Both sites serve mode first now: nothing is flagged (a site left counter first would switch back).
                read(entry, generic, vc, ts, 1);
                bound(entry, bound);
            }
            assertThat(entry.switches()).as("one switch for both sites").isEqualTo(1);
            page.mode(0, 1); // TSC
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long before = read(entry, generic, vc, ts, 1);
                long v = bound(entry, bound);
                long after = read(entry, generic, vc, ts, 1);
                assertThat(v).as("bound, read %d, between reads with the arguments passed", i).isBetween(before, after);
                assertThat(v / 1_000_000_000L).as("the page's time").isBetween(1_000_000L, 1_003_600L);
            }
            assertThat(entry.modeFirstServes()).isFalse();
            assertThat(entry.switches()).isEqualTo(2);
        }
    }

    private static long bound(ReadEntry entry, MethodHandle invoker) throws Throwable {
        long v = (long) invoker.invokeExact();
        return v >= 0 ? v : entry.flagged(v);
    }

    /**
     * The mode-first entry composed in Java over a read without its own clock_gettime call (x86_64 5.3-6.9 on
     * x86, the arm64 read on arm64): while clock_mode is NONE the counter-first read returns the fallback value
     * (the caller's second downcall), then the composed entry serves, answering with clock_gettime inside its
     * brackets; the counter's mode brings the read back.
     */
    @Test
    void theComposedModeFirstEntryShouldServeTheReadsWithoutTheirOwnFallback() throws Throwable {
        boolean x86 = "x86_64".equals(Platform.ARCH);
        assumeTrue(x86 || "aarch64".equals(Platform.ARCH), "exact mode's machine code is x86_64 and arm64 only");
        VdsoLayout layout = x86 ? VdsoLayout.X86_VDSO_DATA_5_3 : VdsoLayout.ARM64_VDSO_DATA_5_3;
        Stubs.Mapped plain = x86 ? VdsoStub.map(VdsoAlgorithm.X86_LEGACY, VdsoStub.orderedFlavour())
                : VdsoStub.map(Arm64VdsoCode.Flavour.ISB_CNTVCT);
        assertThat(plain.failure()).isNull();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(4096, 4096);
            SyntheticPage page = new SyntheticPage(layout, all);
            ReadEntry entry = new ReadEntry(plain.handle(),
                    ReadEntry.modeFirstOver(plain.handle(), all, layout.algorithm().modesRead()));
            MethodHandle invoker = entry.invoker();
            // 1 ns per count from a second in the past (mult 2^24, shift 24): the page's time is ~10^6 s.
            long sec = 1_000_000;
            VdsoReference.Base b = new VdsoReference.Base(VdsoStub.readCounterOrdered() - 1_000_000, Long.MAX_VALUE >> 24,
                    x86 ? -1L : VdsoLayout.ARM64_MASK, 1L << 24, 24, sec, 0);
            page.base(0, 42, 0, b, 1);
            long vc = page.baseAddress(0);
            long ts = page.timestampAddress(0, 1);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                assertThat(read(entry, invoker, vc, ts, 1)).as("counter first: the fallback value")
                        .isEqualTo(VdsoStub.FALLBACK);
            }
            assertThat(entry.modeFirstServes()).isTrue();
            assertThat(VclockCodeExactnessTest.assertInClockGettimeBrackets("clock_gettime's value", 200,
                    clock -> read(entry, invoker, vc, ts, clock))).isEqualTo(1000);
            assertThat(read(entry, invoker, vc, ts, 12345)).as("a clock id the kernel refuses")
                    .isEqualTo(VdsoStub.FALLBACK);
            assertThat(entry.switches()).isEqualTo(1);
            page.mode(0, 1); // the counter (x86 TSC, arm64 ARCHTIMER)
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long v = read(entry, invoker, vc, ts, 1);
                assertThat(v / 1_000_000_000L).as("read %d: the page's time", i).isBetween(sec, sec + 3600);
            }
            assertThat(entry.modeFirstServes()).isFalse();
            assertThat(entry.switches()).isEqualTo(2);
        }
    }

    @Test
    void aSingleEntryShouldNeverSwitch() throws Throwable {
        X86VdsoCodeExactnessTest.assumeX86();
        Stubs.Mapped plain = VdsoStub.map(VdsoAlgorithm.X86_OVERFLOW, VdsoStub.orderedFlavour());
        ReadEntry entry = new ReadEntry(plain.handle(), null);
        for (int i = 0; i < 4 * ReadEntry.FLAGS_TO_SWITCH; i++) {
            assertThat(entry.flagged(VdsoStub.FALLBACK)).isEqualTo(VdsoStub.FALLBACK);
        }
        assertThat(entry.switches()).isZero();
        assertThat(entry.flagged(Long.MIN_VALUE | 12345)).as("the flag stripped").isEqualTo(12345);
    }
}
