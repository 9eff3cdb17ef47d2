package org.timekeeping4j.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.timekeeping4j.testclocks.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;

class TimekeepingMicrometerClockTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    @Test
    void shouldTimeSamplesWithTimekeepingMonotonicWithinKernelBrackets() {
        List<Long> handedOut = new CopyOnWriteArrayList<>();
        ClockReader monotonic = Clocks.reader(ClockId.MONOTONIC);
        TimekeepingMicrometerClock clock = new TimekeepingMicrometerClock(Clocks.reader(ClockId.REALTIME), () -> {
            long nanos = monotonic.nanos();
            handedOut.add(nanos);
            return nanos;
        });
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        Timer timer = Timer.builder("bracketed").register(registry);

        long outerStart = KernelClocks.nanos(ClockId.MONOTONIC);
        Timer.Sample sample = Timer.start(registry);
        long innerStart = KernelClocks.nanos(ClockId.MONOTONIC);
        long innerEnd = KernelClocks.nanos(ClockId.MONOTONIC);
        long recorded = sample.stop(timer);
        long outerEnd = KernelClocks.nanos(ClockId.MONOTONIC);

        assertThat(handedOut).as("MONOTONIC reads by the Timer.Sample").hasSizeGreaterThanOrEqualTo(2);
        assertThat(differencesOf(handedOut)).as("the duration is the difference of two reads of the adapter")
                .contains(recorded);
        assertThat(timer.count()).isEqualTo(1);
        assertThat((long) timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(recorded);
        // Each end of the sample lies within AGREEMENT_BOUND_NANOS of its kernel bracket, so the duration
        // lies within twice that of the inner and outer bracket widths.
        assertThat(recorded).isBetween(
                innerEnd - innerStart - 2 * AGREEMENT_BOUND_NANOS, outerEnd - outerStart + 2 * AGREEMENT_BOUND_NANOS);
    }

    private static List<Long> differencesOf(List<Long> reads) {
        List<Long> differences = new ArrayList<>();
        for (int i = 0; i < reads.size(); i++) {
            for (int j = i + 1; j < reads.size(); j++) {
                differences.add(reads.get(j) - reads.get(i));
            }
        }
        return differences;
    }

    @Test
    void shouldReadWallTimeMillisAndMonotonicNanosWithinKernelBrackets() {
        TimekeepingMicrometerClock clock = TimekeepingMicrometerClock.getInstance();

        long realtimeBefore = KernelClocks.nanos(ClockId.REALTIME);
        long wallMillis = clock.wallTime();
        long realtimeAfter = KernelClocks.nanos(ClockId.REALTIME);
        long monotonicBefore = KernelClocks.nanos(ClockId.MONOTONIC);
        long monotonicNanos = clock.monotonicTime();
        long monotonicAfter = KernelClocks.nanos(ClockId.MONOTONIC);

        assertThat(wallMillis).isBetween(
                (realtimeBefore - AGREEMENT_BOUND_NANOS) / 1_000_000, (realtimeAfter + AGREEMENT_BOUND_NANOS) / 1_000_000);
        assertThat(monotonicNanos)
                .isBetween(monotonicBefore - AGREEMENT_BOUND_NANOS, monotonicAfter + AGREEMENT_BOUND_NANOS);
    }

    /** A timer records exactly the time the test let pass: the clock reads clocks the test moves. */
    @Test
    void testClocksShouldDriveATimerWithoutSleeping() {
        ManualClock wall = ManualClock.startingAt(Instant.parse("2026-12-06T12:00:00Z"));
        ManualClock monotonic = ManualClock.startingAt(0);
        TimekeepingMicrometerClock clock = TimekeepingMicrometerClock.of(wall, monotonic);
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        Timer timer = registry.timer("request");
        Timer.Sample sample = Timer.start(registry);
        monotonic.advance(Duration.ofMillis(5));
        sample.stop(timer);
        assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(5_000_000);
        assertThat(clock.wallTime()).isEqualTo(Instant.parse("2026-12-06T12:00:00Z").toEpochMilli());
    }
}
