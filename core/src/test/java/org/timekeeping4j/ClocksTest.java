package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.ZoneId;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ClocksTest {

    private static final EnumSet<ClockId> HIGH_RESOLUTION = EnumSet.of(ClockId.REALTIME, ClockId.MONOTONIC,
            ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI);

    @Test
    void monotonicShouldLieBetweenTwoSystemNanoTimeReads() {
        // System.nanoTime is CLOCK_MONOTONIC on Linux: an independent reading of the same clock.
        for (int i = 0; i < 10_000; i++) {
            long before = System.nanoTime();
            long kernel = Clocks.kernelNanos(ClockId.MONOTONIC);
            long after = System.nanoTime();
            assertThat(kernel).isBetween(before, after);
        }
    }

    @Test
    void realtimeShouldLieBetweenTwoInstantNowReads() {
        for (int i = 0; i < 10_000; i++) {
            Instant before = Instant.now();
            long kernel = Clocks.kernelNanos(ClockId.REALTIME);
            Instant after = Instant.now();
            assertThat(kernel).isBetween(epochNanos(before), epochNanos(after));
        }
    }

    @Test
    void syscallPathShouldAgreeWithTheVdsoPath() {
        for (ClockId c : HIGH_RESOLUTION) {
            for (int i = 0; i < 1000; i++) {
                long before = Clocks.kernelNanos(c);
                long syscall = Clocks.syscallNanos(c);
                long after = Clocks.kernelNanos(c);
                assertThat(syscall).as(c.name()).isBetween(before, after);
            }
        }
    }

    @Test
    void taiShouldBeRealtimePlusTheKernelsTaiOffset() {
        SyncStatus status = SyncStatus.read();
        long offset = status.isAvailable() ? status.taiOffsetSeconds() * 1_000_000_000L : 0;
        long before = Clocks.kernelNanos(ClockId.REALTIME);
        long tai = Clocks.kernelNanos(ClockId.TAI);
        long after = Clocks.kernelNanos(ClockId.REALTIME);
        assertThat(tai - offset).isBetween(before, after);
    }

    @Test
    void boottimeShouldNeverBeBehindMonotonic() {
        long mono = Clocks.kernelNanos(ClockId.MONOTONIC);
        long boot = Clocks.kernelNanos(ClockId.BOOTTIME);
        assertThat(boot).isGreaterThanOrEqualTo(mono);
    }

    @Test
    void highResolutionClocksShouldReportOneNanosecond() {
        for (ClockId c : HIGH_RESOLUTION) {
            assertThat(Clocks.resolutionNanos(c)).as(c.name()).isEqualTo(1);
        }
    }

    @Test
    void coarseResolutionShouldBeTheTickTheClockVisiblyAdvancesBy() {
        for (ClockId c : EnumSet.of(ClockId.MONOTONIC_COARSE, ClockId.REALTIME_COARSE)) {
            long resolution = Clocks.resolutionNanos(c);
            assertThat(resolution).as(c.name()).isBetween(1_000_000L, 10_000_000L); // HZ 100..1000
            // The smallest step the coarse clock takes while we spin is one tick (NTP may stretch it by ppm).
            long smallestStep = Long.MAX_VALUE;
            long last = Clocks.kernelNanos(c);
            int steps = 0;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (steps < 20 && System.nanoTime() < deadline) {
                long now = Clocks.kernelNanos(c);
                if (now != last) {
                    smallestStep = Math.min(smallestStep, now - last);
                    last = now;
                    steps++;
                }
            }
            assertThat(steps).as("coarse clock advanced").isPositive();
            assertThat((double) smallestStep).as(c.name()).isCloseTo(resolution, org.assertj.core.data.Percentage.withPercentage(1));
        }
    }

    @Test
    void resolutionShouldBeConstant() {
        for (ClockId c : ClockId.values()) {
            if (Clocks.isSupported(c)) {
                long first = Clocks.resolutionNanos(c);
                for (int i = 0; i < 100; i++) {
                    assertThat(Clocks.resolutionNanos(c)).isEqualTo(first);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ClockId.class)
    void everyClockShouldEitherReadOrSayWhyNot(ClockId c) {
        if (Clocks.isSupported(c)) {
            assertThat(Clocks.whyUnsupported(c)).isEmpty();
            assertThat(Clocks.kernelNanos(c)).isPositive();
            assertThat(Clocks.syscallNanos(c)).isPositive();
        } else {
            String why = Clocks.whyUnsupported(c).orElseThrow();
            assertThat(why).contains(c.kernelName());
            assertThatThrownBy(() -> Clocks.kernelNanos(c))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
            assertThatThrownBy(() -> Clocks.syscallNanos(c))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
            assertThatThrownBy(() -> Clocks.kernelTime(c, new TimeSpec()))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessage(why);
        }
    }

    @Test
    void disabledAuxClocksShouldSayHowToEnableThem() {
        for (ClockId c : EnumSet.range(ClockId.AUX_0, ClockId.AUX_7)) {
            if (!Clocks.isSupported(c)) {
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
                long before = Clocks.kernelNanos(c);
                Clocks.kernelTime(c, ts);
                long after = Clocks.kernelNanos(c);
                assertThat(ts.nanos()).isBetween(0, 999_999_999);
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
            sink += Clocks.kernelNanos(ClockId.MONOTONIC) + Clocks.kernelTime(ClockId.REALTIME, ts).nanos();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            sink += Clocks.kernelNanos(ClockId.MONOTONIC);
            sink += Clocks.kernelTime(ClockId.REALTIME, ts).nanos();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isNotZero();
        // 2*10^6 reads: even 8 bytes each would be 16 MB. Allow a little for the measurement itself.
        assertThat(allocated).as("bytes allocated by 2,000,000 reads").isLessThan(16_384);
    }

    @Test
    void javaTimeViewsShouldReadRealtime() {
        var source = Clocks.instantSource(ClockId.REALTIME);
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
        assertThatThrownBy(() -> Clocks.instantSource(ClockId.MONOTONIC))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MONOTONIC");
    }

    @Test
    void aFileDescriptorThatIsNoClockShouldBeRefusedClearly() {
        assertThatThrownBy(() -> Clocks.kernelNanos(new DynamicClockId(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("file descriptor 0 is not an open clock device");
        assertThatThrownBy(() -> Clocks.resolutionNanos(new DynamicClockId(999_999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("999999");
    }

    private static long epochNanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }
}
