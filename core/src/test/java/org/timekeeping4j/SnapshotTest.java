package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Snapshots, cross timestamps and the event ring in whichever mode serves (exact mode's own values are checked
 * in ExactClocksTest): between the reads around them, allocation-free, other clocks refused.
 */
class SnapshotTest {

    private static final EnumSet<ClockId> SNAPSHOT = EnumSet.of(ClockId.REALTIME, ClockId.MONOTONIC,
            ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI);
    @Test
    void aSnapshotShouldLieBetweenTheFastReadsAroundIt() {
        Snapshot s = new Snapshot();
        for (ClockId c : SNAPSHOT) {
            for (int i = 0; i < 10_000; i++) {
                long before = Clocks.nanos(c);
                long rawBefore = Clocks.nanos(ClockId.MONOTONIC_RAW);
                Clocks.snapshot(c, s);
                long after = Clocks.nanos(c);
                long rawAfter = Clocks.nanos(ClockId.MONOTONIC_RAW);
                if (s.isFromCounter()) {
                    assertThat(s.nanos()).as(c.name()).isBetween(before, after);
                    assertThat(s.rawNanos()).isBetween(rawBefore, rawAfter);
                }
            }
        }
    }

    @Test
    void snapshotsShouldAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Snapshot s = new Snapshot();
        long sink = 0;
        for (int i = 0; i < 200_000; i++) {
            Clocks.snapshot(ClockId.REALTIME, s);
            sink += s.nanos();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            Clocks.snapshot(ClockId.REALTIME, s);
            sink += s.nanos() + s.rawNanos();
            Clocks.snapshot(ClockId.MONOTONIC_RAW, s);
            sink += s.nanos();
        }
        assertThat(sink).isNotZero();
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(16_384);
    }

    @Test
    void otherClocksShouldBeRefusedClearly() {
        assertThatThrownBy(() -> Clocks.snapshot(ClockId.MONOTONIC_COARSE, new Snapshot()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MONOTONIC_COARSE");
    }

    @Test
    void crossTimestampsShouldCorrelateTwoClocksWithTheirWidth() {
        CrossTimestamp x = new CrossTimestamp();
        Clocks.crossTimestamp(ClockId.REALTIME, ClockId.MONOTONIC_RAW, 16, x);
        assertThat(x.clockA()).isEqualTo(ClockId.REALTIME);
        if (x.isFromCounter()) {
            assertThat(x.widthNanos()).isZero();
        } else {
            assertThat(x.widthNanos()).isPositive();
        }
        // The offset REALTIME -> MONOTONIC_RAW agrees with a kernel-bracketed estimate within its width
        // plus the fast path's error.
        long r0 = KernelClocks.nanos(ClockId.REALTIME);
        long raw = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
        long r1 = KernelClocks.nanos(ClockId.REALTIME);
        long kernelOffset = raw - (r0 + (r1 - r0) / 2);
        assertThat(Math.abs(x.offsetNanos() - kernelOffset)).isLessThan((r1 - r0) + x.widthNanos() + 1_000);
        // A clock served only by the kernel is bracketed.
        Clocks.crossTimestamp(ClockId.MONOTONIC_COARSE, ClockId.MONOTONIC, 16, x);
        assertThat(x.isFromCounter()).isFalse();
        assertThat(x.widthNanos()).isNotNegative();
    }

    @Test
    void aRingShouldKeepTheNewestEventsOnly() {
        EventRecorder recorder = new EventRecorder(8);
        for (int i = 0; i < 20; i++) {
            recorder.record(Clocks.ticks(), i);
        }
        assertThat(recorder.recorded()).isEqualTo(20);
        List<Long> payloads = new ArrayList<>();
        recorder.export(ClockId.MONOTONIC, (nanos, payload, extrapolated) -> payloads.add(payload));
        assertThat(payloads).containsExactly(12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
        assertThatThrownBy(() -> new EventRecorder(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
