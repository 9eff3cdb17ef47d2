package org.timekeeping4j.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

class TimekeepingMicrometerClockTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    @Test
    void shouldTimeSamplesWithTimekeepingMonotonicWithinKernelBrackets() {
        AtomicLong monotonicReads = new AtomicLong();
        ClockReader monotonic = Clocks.clock(ClockId.MONOTONIC);
        TimekeepingMicrometerClock clock = new TimekeepingMicrometerClock(Clocks.clock(ClockId.REALTIME), () -> {
            monotonicReads.incrementAndGet();
            return monotonic.nanos();
        });
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        Timer timer = Timer.builder("bracketed").register(registry);

        long outerStart = Clocks.kernelNanos(ClockId.MONOTONIC);
        Timer.Sample sample = Timer.start(registry);
        long innerStart = Clocks.kernelNanos(ClockId.MONOTONIC);
        long innerEnd = Clocks.kernelNanos(ClockId.MONOTONIC);
        long recorded = sample.stop(timer);
        long outerEnd = Clocks.kernelNanos(ClockId.MONOTONIC);

        assertThat(monotonicReads.get()).as("MONOTONIC reads by the Timer.Sample").isEqualTo(2);
        assertThat(timer.count()).isEqualTo(1);
        assertThat((long) timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(recorded);
        // Each end of the sample lies within AGREEMENT_BOUND_NANOS of its kernel bracket, so the duration
        // lies within twice that of the inner and outer bracket widths.
        assertThat(recorded).isBetween(
                innerEnd - innerStart - 2 * AGREEMENT_BOUND_NANOS, outerEnd - outerStart + 2 * AGREEMENT_BOUND_NANOS);
    }

    @Test
    void shouldReadWallTimeMillisAndMonotonicNanosWithinKernelBrackets() {
        TimekeepingMicrometerClock clock = TimekeepingMicrometerClock.getInstance();

        long realtimeBefore = Clocks.kernelNanos(ClockId.REALTIME);
        long wallMillis = clock.wallTime();
        long realtimeAfter = Clocks.kernelNanos(ClockId.REALTIME);
        long monotonicBefore = Clocks.kernelNanos(ClockId.MONOTONIC);
        long monotonicNanos = clock.monotonicTime();
        long monotonicAfter = Clocks.kernelNanos(ClockId.MONOTONIC);

        assertThat(wallMillis).isBetween(
                (realtimeBefore - AGREEMENT_BOUND_NANOS) / 1_000_000, (realtimeAfter + AGREEMENT_BOUND_NANOS) / 1_000_000);
        assertThat(monotonicNanos)
                .isBetween(monotonicBefore - AGREEMENT_BOUND_NANOS, monotonicAfter + AGREEMENT_BOUND_NANOS);
    }
}
