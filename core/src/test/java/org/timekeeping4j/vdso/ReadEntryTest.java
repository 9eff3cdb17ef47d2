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
 * The switch between the read and the kernel path's clock_gettime stubs over a synthetic vDSO page: while
 * clock_mode is one the code does not read the stubs come to serve (clock_gettime's answers, inside their
 * brackets, and no flag), a mode the code reads brings the read back through the watcher, and the switches are
 * bounded, ending on the stubs.
 */
class ReadEntryTest {

    /** The watcher's period in these tests: short, so that a test waits little for the way back. */
    private static final long WATCH_MILLIS = 5;

    private static long read(ReadEntry entry, MethodHandle invoker, long vc, long ts, long clockId) throws Throwable {
        long v = (long) invoker.invokeExact(vc, ts, clockId, 0L);
        return v >= 0 ? v : entry.flagged(v);
    }

    private static long bound(ReadEntry entry, MethodHandle invoker) throws Throwable {
        long v = (long) invoker.invokeExact();
        return v >= 0 ? v : entry.flagged(v);
    }

    /** The generic site's clock_gettime target, Generation's. */
    private static MethodHandle clockGettime() {
        assertThat(ClockGettimeStub.NANOS).as("the kernel path's stubs: %s", ClockGettimeStub.describe()).isNotNull();
        return Generation.clockGettimeOfAnyClock();
    }

    private static MemorySegment mode(SyntheticPage page) {
        return MemorySegment.ofAddress(page.baseAddress(0) + VdsoLayout.CLOCK_MODE).reinterpret(4);
    }

    /** Waits (bounded) until the watcher made the read serve again. */
    private static void awaitRead(ReadEntry entry) {
        org.awaitility.Awaitility.await("the watcher brings the read back").atMost(java.time.Duration.ofSeconds(60))
                .pollInterval(java.time.Duration.ofMillis(WATCH_MILLIS)).until(() -> !entry.clockGettimeServes());
    }

    @Test
    void theSitesShouldFollowTheModeAndStopSwitchingAtTheirBound() throws Throwable {
        X86VdsoCodeExactnessTest.assumeX86();
        Stubs.Mapped read = VdsoStub.map(VdsoAlgorithm.X86_OVERFLOW, VdsoStub.orderedFlavour(), true);
        assertThat(read.failure()).isNull();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(4096, 4096);
            SyntheticPage page = new SyntheticPage(VdsoLayout.X86_VDSO_CLOCK_6_15, all);
            VdsoReference.Base b = VclockCodeExactnessTest.baseAround(new SplittableRandom(29), 1L << 40);
            page.base(0, 42, 0, b, 1);
            ReadEntry entry = new ReadEntry(new MethodHandle[] {read.handle()}, new MethodHandle[] {clockGettime()},
                    mode(page), VdsoAlgorithm.X86_OVERFLOW.modesRead(), WATCH_MILLIS);
            MethodHandle invoker = entry.invoker(0);
            long vc = page.baseAddress(0);
            long ts = page.timestampAddress(0, 1);
            assertThat(entry.clockGettimeServes()).isFalse();
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) { // clock_mode NONE: every read falls back
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = read(entry, invoker, vc, ts, 1);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("read %d: clock_gettime's value", i).isBetween(k0, k1);
            }
            assertThat(entry.clockGettimeServes()).as("after %d fallbacks", ReadEntry.FLAGS_TO_SWITCH).isTrue();
            for (int i = 0; i < 10 * ReadEntry.FLAGS_TO_SWITCH; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = (long) invoker.invokeExact(vc, ts, 1L, 0L);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("the stub, read %d: unflagged, clock_gettime's", i).isBetween(k0, k1);
            }
            assertThat(entry.switches()).isEqualTo(1);
            page.mode(0, 1); // TSC: the code reads the counter over the synthetic page
            awaitRead(entry);
            assertThat(entry.switches()).isEqualTo(2);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long v = read(entry, invoker, vc, ts, 1);
                assertThat(v / 1_000_000_000L).as("read %d: the page's time", i).isBetween(b.sec(), b.sec() + (1L << 24));
            }
            while (true) {
                page.mode(0, 0);
                for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                    read(entry, invoker, vc, ts, 1);
                }
                assertThat(entry.clockGettimeServes()).as("after %d switches", entry.switches()).isTrue();
                if (entry.switches() == ReadEntry.MAX_SWITCHES) {
                    break;
                }
                page.mode(0, 1);
                awaitRead(entry);
            }
            // At the bound no watcher runs (the last one ended bringing the read back before the final switch), so
            // nothing can switch back, whatever the mode: no sleep needed to see that nothing happened.
            org.awaitility.Awaitility.await("the earlier watchers end").atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> entry.watchers() == 0);
            page.mode(0, 1);
            assertThat(entry.watchers()).as("no watcher at the bound").isZero();
            assertThat(entry.switches()).as("bounded").isEqualTo(ReadEntry.MAX_SWITCHES);
            assertThat(entry.clockGettimeServes()).as("at the bound the stubs serve for good").isTrue();
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = read(entry, invoker, vc, ts, 1);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("read %d after the bound: clock_gettime's value", i).isBetween(k0, k1);
            }
        }
    }

    /**
     * One clock's read with its arguments bound in the code (VdsoStub.mapBound), as a second site: its flags count
     * toward the switch the first site takes too, both sites switch together, the bound site to its clock's own
     * stub, and on a mode the code reads the bound read lies between two reads with the arguments passed.
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
            Stubs.Mapped cf = VdsoStub.mapBound(a, true, vc, ts, 1, 0);
            assertThat(cf.failure()).isNull();
            ReadEntry entry = new ReadEntry(
                    new MethodHandle[] {VdsoStub.map(a, VdsoStub.orderedFlavour(), true).handle(), cf.handle()},
                    new MethodHandle[] {clockGettime(), ClockGettimeStub.handle(ClockGettimeStub.CLOCK_MONOTONIC)},
                    mode(page), a.modesRead(), WATCH_MILLIS);
            MethodHandle generic = entry.invoker(0);
            MethodHandle bound = entry.invoker(1);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) { // clock_mode NONE: every read falls back
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long v = bound(entry, bound);
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(v).as("bound, read %d: clock_gettime's value", i).isBetween(k0, k1);
            }
            assertThat(entry.clockGettimeServes()).as("after the bound site's fallbacks").isTrue();
            for (int i = 0; i < 2 * ReadEntry.FLAGS_TO_SWITCH; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(1);
                long g = (long) generic.invokeExact(vc, ts, 1L, 0L);
                long v = (long) bound.invokeExact();
                long k1 = ClockGettimeStub.clockGettimeNanos(1);
                assertThat(g).as("generic site, read %d: the stub's, unflagged", i).isBetween(k0, k1);
                assertThat(v).as("bound site, read %d: the stub's, unflagged", i).isBetween(g, k1);
            }
            assertThat(entry.switches()).as("one switch for both sites").isEqualTo(1);
            page.mode(0, 1); // TSC
            awaitRead(entry);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long before = read(entry, generic, vc, ts, 1);
                long v = bound(entry, bound);
                long after = read(entry, generic, vc, ts, 1);
                assertThat(v).as("bound, read %d, between reads with the arguments passed", i).isBetween(before, after);
                assertThat(v / 1_000_000_000L).as("the page's time").isBetween(1_000_000L, 1_003_600L);
            }
            assertThat(entry.clockGettimeServes()).isFalse();
            assertThat(entry.switches()).isEqualTo(2);
        }
    }

    /**
     * A read without its own clock_gettime call (x86_64 5.3-6.9 on x86, the arm64 read on arm64): while clock_mode
     * is NONE it returns the fallback value (the caller's second downcall), then the stubs serve, answering inside
     * clock_gettime's brackets, a clock id the kernel refuses as the fallback value (the caller reports the
     * error); the counter's mode brings the read back.
     */
    @Test
    void theStubsShouldServeAReadWithoutItsOwnFallback() throws Throwable {
        boolean x86 = "x86_64".equals(Platform.ARCH);
        assumeTrue(x86 || "aarch64".equals(Platform.ARCH), "exact mode's machine code is x86_64 and arm64 only");
        VdsoLayout layout = x86 ? VdsoLayout.X86_VDSO_DATA_5_3 : VdsoLayout.ARM64_VDSO_DATA_5_3;
        Stubs.Mapped plain = x86 ? VdsoStub.map(VdsoAlgorithm.X86_LEGACY, VdsoStub.orderedFlavour())
                : VdsoStub.map(Arm64VdsoCode.Flavour.ISB_CNTVCT);
        assertThat(plain.failure()).isNull();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(4096, 4096);
            SyntheticPage page = new SyntheticPage(layout, all);
            // 1 ns per count from a second in the past (mult 2^24, shift 24): the page's time is ~10^6 s.
            long sec = 1_000_000;
            VdsoReference.Base b = new VdsoReference.Base(VdsoStub.readCounterOrdered() - 1_000_000, Long.MAX_VALUE >> 24,
                    x86 ? -1L : VdsoLayout.ARM64_MASK, 1L << 24, 24, sec, 0);
            page.base(0, 42, 0, b, 1);
            ReadEntry entry = new ReadEntry(new MethodHandle[] {plain.handle()}, new MethodHandle[] {clockGettime()},
                    mode(page), layout.algorithm().modesRead(), WATCH_MILLIS);
            MethodHandle invoker = entry.invoker(0);
            long vc = page.baseAddress(0);
            long ts = page.timestampAddress(0, 1);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                assertThat(read(entry, invoker, vc, ts, 1)).as("the read: the fallback value").isEqualTo(VdsoStub.FALLBACK);
            }
            assertThat(entry.clockGettimeServes()).isTrue();
            assertThat(VclockCodeExactnessTest.assertInClockGettimeBrackets("clock_gettime's value", 200,
                    clock -> read(entry, invoker, vc, ts, clock))).isEqualTo(1000);
            assertThat(read(entry, invoker, vc, ts, 12345)).as("a clock id the kernel refuses")
                    .isEqualTo(VdsoStub.FALLBACK);
            assertThat(entry.switches()).isEqualTo(1);
            page.mode(0, 1); // the counter (x86 TSC, arm64 ARCHTIMER)
            awaitRead(entry);
            for (int i = 0; i < ReadEntry.FLAGS_TO_SWITCH; i++) {
                long v = read(entry, invoker, vc, ts, 1);
                assertThat(v / 1_000_000_000L).as("read %d: the page's time", i).isBetween(sec, sec + 3600);
            }
            assertThat(entry.switches()).isEqualTo(2);
        }
    }

    /** Without clock_gettime stubs (a time namespace, or none mapped) the read serves for good. */
    @Test
    void aSiteWithoutStubsShouldNeverSwitch() throws Throwable {
        X86VdsoCodeExactnessTest.assumeX86();
        Stubs.Mapped plain = VdsoStub.map(VdsoAlgorithm.X86_OVERFLOW, VdsoStub.orderedFlavour());
        ReadEntry entry = new ReadEntry(new MethodHandle[] {plain.handle()}, null, null, 0, WATCH_MILLIS);
        for (int i = 0; i < 4 * ReadEntry.FLAGS_TO_SWITCH; i++) {
            assertThat(entry.flagged(VdsoStub.FALLBACK)).isEqualTo(VdsoStub.FALLBACK);
        }
        assertThat(entry.switches()).isZero();
        assertThat(entry.clockGettimeServes()).isFalse();
        assertThat(entry.flagged(Long.MIN_VALUE | 12345)).as("the flag stripped").isEqualTo(12345);
    }
}
