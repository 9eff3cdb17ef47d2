package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.tracking.KernelTracker;

@Tag("tracker-mode") // run with timekeeping4j.vdso=off (core/pom.xml): the tracker serves
class SnapshotTest {

    private static final EnumSet<ClockId> SNAPSHOT = EnumSet.of(ClockId.REALTIME, ClockId.MONOTONIC,
            ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI);
    private static final boolean HARDWARE = CounterSelector.selected().isHardware();

    @BeforeAll
    static void waitForTracking() {
        assertThat(Clocks.awaitFastPath(java.time.Duration.ofSeconds(20))).as(Clocks.servingPaths().toString())
                .isEqualTo(HARDWARE);
    }

    @Test
    void aSnapshotShouldBeOneInstantSeenByTwoClocksExactly() {
        Snapshot s = new Snapshot();
        for (ClockId c : SNAPSHOT) {
            for (int i = 0; i < 10_000; i++) {
                assertThat(Clocks.snapshot(c, s)).isTrue();
                assertThat(s.clock()).isEqualTo(c);
                if (!s.isFromCounter()) {
                    assertThat(s.counter()).isZero(); // the kernel path says so
                    continue;
                }
                KernelTracker t = TrackerMode.tracker();
                // nanos() is what Clocks.nanos(c) returned at that counter value, rawNanos() what
                // nanos(MONOTONIC_RAW) returned there: the same conversion the read path makes.
                assertThat(s.nanos()).isEqualTo(t.convert(s.counter(), c));
                assertThat(s.rawNanos()).isEqualTo(t.convert(s.counter(), ClockId.MONOTONIC_RAW));
                assertThat(Clocks.ticksToNanos(s.counter(), c)).isEqualTo(s.nanos());
            }
        }
    }

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
        long r0 = Clocks.kernelNanos(ClockId.REALTIME);
        long raw = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
        long r1 = Clocks.kernelNanos(ClockId.REALTIME);
        long kernelOffset = raw - (r0 + (r1 - r0) / 2);
        assertThat(Math.abs(x.offsetNanos() - kernelOffset)).isLessThan((r1 - r0) + x.widthNanos() + 1_000);
        // A clock served only by the kernel is bracketed.
        Clocks.crossTimestamp(ClockId.MONOTONIC_COARSE, ClockId.MONOTONIC, 16, x);
        assertThat(x.isFromCounter()).isFalse();
        assertThat(x.widthNanos()).isNotNegative();
    }

    @Test
    void recordedEventsShouldExportToExactlyWhatNanosReturned() {
        org.junit.jupiter.api.Assumptions.assumeTrue(HARDWARE, "no trusted counter: events are MONOTONIC_RAW ns, "
                + "converted to REALTIME through an offset measured at export (flagged inexact)");
        EventRecorder recorder = new EventRecorder(1000);
        assertThat(recorder.capacity()).isEqualTo(1024);
        long[] before = new long[100];
        for (int i = 0; i < 100; i++) {
            before[i] = Clocks.nanos(ClockId.REALTIME);
            recorder.record(i);
        }
        long end = Clocks.nanos(ClockId.REALTIME);
        List<long[]> out = new ArrayList<>();
        int n = recorder.export(ClockId.REALTIME, (nanos, payload, exact) -> out.add(new long[] {nanos, payload, exact ? 1 : 0}));
        assertThat(n).isEqualTo(100);
        for (int i = 0; i < 100; i++) {
            long[] e = out.get(i);
            assertThat(e[1]).isEqualTo(i);
            long next = i + 1 < 100 ? before[i + 1] : end;
            // Unordered ticks may be taken a few cycles early: 100 ns of slack below.
            assertThat(e[0]).isBetween(before[i] - 100, next);
            if (HARDWARE) {
                assertThat(e[2]).as("within the parameter history").isEqualTo(1);
            }
        }
    }

    @Test
    void aRingShouldKeepTheNewestEventsOnly() {
        EventRecorder recorder = new EventRecorder(8);
        for (int i = 0; i < 20; i++) {
            recorder.record(Clocks.ticks(), i);
        }
        assertThat(recorder.recorded()).isEqualTo(20);
        List<Long> payloads = new ArrayList<>();
        recorder.export(ClockId.MONOTONIC, (nanos, payload, exact) -> payloads.add(payload));
        assertThat(payloads).containsExactly(12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
        assertThatThrownBy(() -> new EventRecorder(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eventsOlderThanTheHistoryShouldBeFlagged() {
        if (!HARDWARE) {
            return;
        }
        EventRecorder recorder = new EventRecorder(4);
        // A counter value from long before the tracker started: outside any history.
        recorder.record(TrackerMode.tracker().counter().read() - (long) (3600 * Clocks.calibration().frequencyHz()), 7);
        List<Boolean> exact = new ArrayList<>();
        recorder.export(ClockId.MONOTONIC, (nanos, payload, ex) -> exact.add(ex));
        assertThat(exact).containsExactly(false);
    }
}
