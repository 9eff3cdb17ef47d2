package org.timekeeping4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.timekeeping4j.testclocks.ManualClock;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;

class TimekeepingOtelClockTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    @Test
    void shouldStampSpansFromTimekeepingRealtimeWithinKernelBrackets() {
        AtomicLong realtimeReads = new AtomicLong();
        AtomicLong monotonicReads = new AtomicLong();
        ClockReader realtime = Clocks.reader(ClockId.REALTIME);
        ClockReader monotonic = Clocks.reader(ClockId.MONOTONIC);
        TimekeepingOtelClock clock = new TimekeepingOtelClock(
                () -> {
                    realtimeReads.incrementAndGet();
                    return realtime.nanos();
                },
                () -> {
                    monotonicReads.incrementAndGet();
                    return monotonic.nanos();
                });
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .setClock(clock)
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build()) {
            Tracer tracer = provider.get("timekeeping4j-test");

            long before = KernelClocks.nanos(ClockId.REALTIME);
            Span span = tracer.spanBuilder("bracketed").startSpan();
            span.end();
            long after = KernelClocks.nanos(ClockId.REALTIME);

            List<SpanData> spans = exporter.getFinishedSpanItems();
            assertThat(spans).hasSize(1);
            SpanData data = spans.get(0);
            assertThat(realtimeReads.get()).as("REALTIME reads by the SDK").isPositive();
            assertThat(monotonicReads.get()).as("MONOTONIC reads by the SDK").isPositive();
            assertThat(data.getStartEpochNanos())
                    .isBetween(before - AGREEMENT_BOUND_NANOS, after + AGREEMENT_BOUND_NANOS);
            assertThat(data.getEndEpochNanos())
                    .isBetween(data.getStartEpochNanos(), after + AGREEMENT_BOUND_NANOS);
        }
    }

    @Test
    void shouldReadRealtimeAndMonotonicWithinKernelBrackets() {
        TimekeepingOtelClock clock = TimekeepingOtelClock.getInstance();

        long realtimeBefore = KernelClocks.nanos(ClockId.REALTIME);
        long now = clock.now();
        long realtimeAfter = KernelClocks.nanos(ClockId.REALTIME);
        long monotonicBefore = KernelClocks.nanos(ClockId.MONOTONIC);
        long nanoTime = clock.nanoTime();
        long monotonicAfter = KernelClocks.nanos(ClockId.MONOTONIC);

        assertThat(now).isBetween(realtimeBefore - AGREEMENT_BOUND_NANOS, realtimeAfter + AGREEMENT_BOUND_NANOS);
        assertThat(nanoTime)
                .isBetween(monotonicBefore - AGREEMENT_BOUND_NANOS, monotonicAfter + AGREEMENT_BOUND_NANOS);
    }

    /** now() and nanoTime() read the clocks the test gave, and move only when the test moves them. */
    @Test
    void testClocksShouldStandInForTheKernelsClocks() {
        ManualClock realtime = ManualClock.startingAt(1_796_515_200_000_000_000L);
        ManualClock monotonic = ManualClock.startingAt(7);
        TimekeepingOtelClock clock = TimekeepingOtelClock.of(realtime, monotonic);
        assertThat(clock.now()).isEqualTo(1_796_515_200_000_000_000L);
        assertThat(clock.nanoTime()).isEqualTo(7);
        monotonic.advanceNanos(1_000);
        assertThat(clock.nanoTime()).isEqualTo(1_007);
        assertThat(clock.now()).as("the wall clock did not move").isEqualTo(1_796_515_200_000_000_000L);
        realtime.advanceNanos(1_234_567);
        assertThat(clock.now(true)).isEqualTo(1_796_515_200_001_234_567L);
        assertThat(clock.now(false)).as("whole milliseconds of the same clock").isEqualTo(1_796_515_200_001_000_000L);
    }

    @Test
    void aLowPrecisionNowShouldBeRealtimeInWholeMilliseconds() {
        TimekeepingOtelClock clock = TimekeepingOtelClock.getInstance();
        for (int i = 0; i < 10_000; i++) {
            long k0 = KernelClocks.nanos(ClockId.REALTIME);
            long low = clock.now(false);
            long k1 = KernelClocks.nanos(ClockId.REALTIME);
            assertThat(low % 1_000_000L).isZero();
            assertThat(low).isBetween(k0 - k0 % 1_000_000L, k1); // never before the millisecond of a read before
        }
    }
}
