package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.timekeeping4j.machine.ClockGettimeStub;

class ClocksTest {

    private static final EnumSet<ClockId> HIGH_RESOLUTION = EnumSet.of(ClockId.REALTIME, ClockId.MONOTONIC,
            ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI);

    @Test
    void monotonicShouldLieBetweenTwoSystemNanoTimeReads() {
        // System.nanoTime is CLOCK_MONOTONIC on Linux: an independent reading of the same clock.
        for (int i = 0; i < 10_000; i++) {
            long before = System.nanoTime();
            long kernel = KernelClocks.nanos(ClockId.MONOTONIC);
            long after = System.nanoTime();
            assertThat(kernel).isBetween(before, after);
        }
    }

    @Test
    void realtimeShouldLieBetweenTwoInstantNowReads() {
        for (int i = 0; i < 10_000; i++) {
            Instant before = Instant.now();
            long kernel = KernelClocks.nanos(ClockId.REALTIME);
            Instant after = Instant.now();
            assertThat(kernel).isBetween(epochNanos(before), epochNanos(after));
        }
    }

    /** KernelClocks.nanos reaches the clocks read most by constant ids of its own: they are the clocks' ids. */
    @Test
    void kernelNanosConstantIdsShouldBeTheClocksIds() {
        assertThat(new int[] {ClockGettimeStub.CLOCK_REALTIME, ClockGettimeStub.CLOCK_MONOTONIC,
            ClockGettimeStub.CLOCK_MONOTONIC_RAW, ClockGettimeStub.CLOCK_BOOTTIME, ClockGettimeStub.CLOCK_TAI}).containsExactly(ClockId.REALTIME.id(), ClockId.MONOTONIC.id(),
                ClockId.MONOTONIC_RAW.id(), ClockId.BOOTTIME.id(), ClockId.TAI.id());
    }

    @Test
    void syscallPathShouldAgreeWithTheVdsoPath() {
        for (ClockId c : HIGH_RESOLUTION) {
            for (int i = 0; i < 1000; i++) {
                long before = KernelClocks.nanos(c);
                long syscall = KernelClocks.syscallNanos(c);
                long after = KernelClocks.nanos(c);
                assertThat(syscall).as(c.name()).isBetween(before, after);
            }
        }
    }

    @Test
    void taiShouldBeRealtimePlusTheKernelsTaiOffset() {
        SyncStatus status = SyncStatus.read();
        long offset = status.isAvailable() ? status.taiOffsetSeconds() * 1_000_000_000L : 0;
        long before = KernelClocks.nanos(ClockId.REALTIME);
        long tai = KernelClocks.nanos(ClockId.TAI);
        long after = KernelClocks.nanos(ClockId.REALTIME);
        assertThat(tai - offset).isBetween(before, after);
    }

    @Test
    void boottimeShouldNeverBeBehindMonotonic() {
        long mono = KernelClocks.nanos(ClockId.MONOTONIC);
        long boot = KernelClocks.nanos(ClockId.BOOTTIME);
        assertThat(boot).isGreaterThanOrEqualTo(mono);
    }

    @Test
    void highResolutionClocksShouldReportOneNanosecond() {
        for (ClockId c : HIGH_RESOLUTION) {
            assertThat(KernelClocks.resolutionNanos(c)).as(c.name()).isEqualTo(1);
        }
    }

    /**
     * A coarse clock's resolution is the tick it advances by. Its steps are whole numbers k of resolutions (a
     * reader that was descheduled, or a kernel that skipped idle ticks, sees several ticks at once), and the ks
     * share no factor: were the resolution half the tick, every k would be even; were it two ticks, steps of an
     * odd number of ticks would be no whole number of it. Steps are counted, not timed: a busy machine (a reader
     * that gets a time slice shorter than a tick, then waits many ticks) makes the ks larger, not the verdict
     * different. A clocksource switch or a clock_settime moves the coarse clocks by a part of a tick (the kernel
     * accumulates the time since the last tick first): such a step is counted apart, and may be at most one in
     * ten.
     */
    @Test
    void coarseResolutionShouldBeTheTickTheClockVisiblyAdvancesBy() {
        for (ClockId c : EnumSet.of(ClockId.MONOTONIC_COARSE, ClockId.REALTIME_COARSE)) {
            long resolution = KernelClocks.resolutionNanos(c);
            assertThat(resolution).as(c.name()).isBetween(1_000_000L, 10_000_000L); // HZ 100..1000
            CoarseSteps s = coarseSteps(c, resolution);
            System.out.println("ClocksTest: " + c + " steps, in ticks of " + resolution + " ns: " + s.ks
                    + (s.offGrid.isEmpty() ? "" : "; not whole ticks: " + s.offGrid + " ns"));
            assertThat(s.offGrid.size()).as("%s: steps of no whole number of %d ns ticks: %s (whole: %s)", c,
                    resolution, s.offGrid, s.ks).isLessThanOrEqualTo(s.ks.size() / 10);
            assertThat(s.gcd).as("%s: the gcd of the steps' tick counts (resolution %d ns; steps %s)", c, resolution,
                    s.ks).isEqualTo(1);
        }
    }

    /** Steps of a coarse clock in ticks of the resolution, their gcd, and the steps (ns) of no whole number. */
    private record CoarseSteps(long gcd, List<Long> ks, List<Long> offGrid) {}

    private static final int COARSE_MIN_STEPS = 20;
    private static final int COARSE_MAX_STEPS = 400;

    /**
     * Watches {@code c} for at least {@value #COARSE_MIN_STEPS} whole-tick steps, then until their tick counts'
     * gcd is 1 (or {@value #COARSE_MAX_STEPS} steps). A step is whole within 1% of a tick plus 500 ppm of the step
     * (the kernel's largest frequency correction, over a long wait).
     */
    private static CoarseSteps coarseSteps(ClockId c, long resolution) {
        List<Long> ks = new ArrayList<>();
        List<Long> offGrid = new ArrayList<>();
        long gcd = 0;
        long last = KernelClocks.nanos(c);
        long lastChange = System.nanoTime();
        while (ks.size() < COARSE_MIN_STEPS || (gcd != 1 && ks.size() + offGrid.size() < COARSE_MAX_STEPS)) {
            long now = KernelClocks.nanos(c);
            if (now == last) {
                // A guard against a clock that never moves, not a verdict on speed: a minute without a tick.
                assertThat(System.nanoTime() - lastChange).as("%s did not advance", c).isLessThan(60_000_000_000L);
                continue;
            }
            long step = now - last;
            long k = Math.round((double) step / resolution);
            if (k >= 1 && Math.abs(step - k * resolution) <= resolution / 100 + step / 2000) {
                ks.add(k);
                gcd = BigInteger.valueOf(gcd).gcd(BigInteger.valueOf(k)).longValueExact();
            } else {
                offGrid.add(step);
                assertThat(offGrid.size()).as("%s: steps of no whole number of %d ns ticks: %s (whole: %s)", c,
                        resolution, offGrid, ks).isLessThanOrEqualTo(COARSE_MIN_STEPS);
            }
            last = now;
            lastChange = System.nanoTime();
        }
        return new CoarseSteps(gcd, ks, offGrid);
    }

    @Test
    void resolutionShouldBeConstant() {
        for (ClockId c : ClockId.values()) {
            if (Clocks.whyUnsupported(c).isEmpty()) {
                long first = KernelClocks.resolutionNanos(c);
                for (int i = 0; i < 100; i++) {
                    assertThat(KernelClocks.resolutionNanos(c)).isEqualTo(first);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ClockId.class)
    void everyClockShouldEitherReadOrSayWhyNot(ClockId c) {
        if (Clocks.whyUnsupported(c).isEmpty()) {
            assertThat(Clocks.whyUnsupported(c)).isEmpty();
            assertThat(KernelClocks.nanos(c)).isPositive();
            assertThat(KernelClocks.syscallNanos(c)).isPositive();
        } else {
            String why = Clocks.whyUnsupported(c).orElseThrow();
            assertThat(why).contains(c.kernelName());
            assertThatThrownBy(() -> KernelClocks.nanos(c))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
            assertThatThrownBy(() -> KernelClocks.syscallNanos(c))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
            assertThatThrownBy(() -> KernelClocks.time(c, new TimeSpec()))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
        }
    }

    @Test
    void disabledAuxClocksShouldSayHowToEnableThem() {
        for (ClockId c : EnumSet.range(ClockId.AUX_0, ClockId.AUX_7)) {
            if (!Clocks.whyUnsupported(c).isEmpty()) {
                String why = Clocks.whyUnsupported(c).orElseThrow();
                // Either the kernel has AUX clocks (getres works) and this one is off, or it has none.
                assertThat(why).containsAnyOf("aux_clock_enable", "Linux 6.17+");
            }
        }
    }

    @Test
    void timeSpecShouldBeNormalisedAndAgreeWithNanos() {
        TimeSpec ts = new TimeSpec();
        for (ClockId c : HIGH_RESOLUTION) {
            for (int i = 0; i < 1000; i++) {
                long before = KernelClocks.nanos(c);
                KernelClocks.time(c, ts);
                long after = KernelClocks.nanos(c);
                assertThat(ts.nanosOfSecond()).isBetween(0, 999_999_999);
                assertThat(ts.seconds()).isNotNegative();
                assertThat(ts.toNanos()).isBetween(before, after);
            }
        }
    }

    @Test
    void readsShouldAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        TimeSpec ts = new TimeSpec();
        long sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm up: JIT, and the per-thread buffer's one allocation
            sink += KernelClocks.nanos(ClockId.MONOTONIC) + KernelClocks.time(ClockId.REALTIME, ts).nanosOfSecond();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            sink += KernelClocks.nanos(ClockId.MONOTONIC);
            sink += KernelClocks.time(ClockId.REALTIME, ts).nanosOfSecond();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isNotZero();
        // 2*10^6 reads: even 8 bytes each would be 16 MB. Allow a little for the measurement itself.
        assertThat(allocated).as("bytes allocated by 2,000,000 reads").isLessThan(16_384);
    }

    @Test
    void javaTimeViewsShouldReadRealtime() {
        java.time.InstantSource source = Clocks.javaClock(ClockId.REALTIME, ZoneId.of("UTC"));
        var clock = Clocks.javaClock(ClockId.REALTIME, ZoneId.of("Europe/Paris"));
        for (int i = 0; i < 1000; i++) {
            Instant before = Instant.now();
            Instant mid = source.instant();
            long millis = clock.millis();
            Instant after = Instant.now();
            assertThat(mid).isBetween(before, after);
            assertThat(millis).isBetween(before.toEpochMilli(), after.toEpochMilli());
        }
        assertThat(clock.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(clock.withZone(ZoneId.of("UTC")).getZone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(Clocks.javaClock(ClockId.TAI, ZoneId.of("UTC")).instant()).isNotNull();
        assertThatThrownBy(() -> Clocks.javaClock(ClockId.MONOTONIC, ZoneId.of("UTC")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MONOTONIC");
    }

    private static long epochNanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void javaClocksShouldSayTheyAreNotSerializableAtWriteObject() throws java.io.IOException {
        java.time.Clock c = java.time.Clock.offset(Clocks.javaClock(ClockId.REALTIME, java.time.ZoneOffset.UTC),
                java.time.Duration.ofSeconds(1));
        var out = new java.io.ObjectOutputStream(java.io.OutputStream.nullOutputStream());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> out.writeObject(c))
                .isInstanceOf(java.io.NotSerializableException.class).hasMessageContaining("JavaTimeClock");
    }
}
