package org.timekeeping4j.agrona;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.timekeeping4j.testclocks.ManualClock;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;

class TimekeepingAgronaClocksTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    @Test
    void shouldReadEpochNanosWithinKernelRealtimeBrackets() {
        EpochNanoClock clock = TimekeepingEpochNanoClock.getInstance();
        assertWithinKernelBrackets(ClockId.REALTIME, clock::nanoTime);
    }

    @Test
    void shouldReadNanosWithinKernelMonotonicBrackets() {
        NanoClock clock = TimekeepingNanoClock.getInstance();
        assertWithinKernelBrackets(ClockId.MONOTONIC, clock::nanoTime);
    }

    @Test
    void shouldStampDistinctErrorLogEntriesFromTimekeepingRealtime() {
        AtomicLong realtimeReads = new AtomicLong();
        ClockReader realtime = Clocks.reader(ClockId.REALTIME);
        EpochClock clock = new TimekeepingEpochClock(() -> {
            realtimeReads.incrementAndGet();
            return realtime.nanos();
        });
        AtomicBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        DistinctErrorLog log = new DistinctErrorLog(buffer, clock);

        long before = KernelClocks.nanos(ClockId.REALTIME);
        assertThat(log.record(new IllegalStateException("bracketed"))).isTrue();
        long after = KernelClocks.nanos(ClockId.REALTIME);

        List<Long> firstObservations = new ArrayList<>();
        int entries = ErrorLogReader.read(buffer, (count, first, last, encoded) -> firstObservations.add(first));
        assertThat(entries).isEqualTo(1);
        assertThat(realtimeReads.get()).as("REALTIME reads by DistinctErrorLog").isPositive();
        assertThat(firstObservations.get(0)).isBetween(
                (before - AGREEMENT_BOUND_NANOS) / 1_000_000, (after + AGREEMENT_BOUND_NANOS) / 1_000_000);
    }

    /** {@code read} lies between kernel reads of {@code clock} taken just before and just after it. */
    private static void assertWithinKernelBrackets(ClockId clock, LongSupplier read) {
        long before = KernelClocks.nanos(clock);
        long value = read.getAsLong();
        long after = KernelClocks.nanos(clock);
        assertThat(value).isBetween(before - AGREEMENT_BOUND_NANOS, after + AGREEMENT_BOUND_NANOS);
    }

    /** Each Agrona clock reads the clock the test gave, in its unit. */
    @Test
    void testClocksShouldStandInForTheKernelsClocks() {
        ManualClock realtime = ManualClock.startingAt(1_796_515_200_123_456_789L);
        ManualClock monotonic = ManualClock.startingAt(42);
        assertThat(TimekeepingNanoClock.of(monotonic).nanoTime()).isEqualTo(42);
        assertThat(TimekeepingEpochNanoClock.of(realtime).nanoTime()).isEqualTo(1_796_515_200_123_456_789L);
        assertThat(TimekeepingEpochClock.of(realtime).time()).isEqualTo(1_796_515_200_123L);
    }
}
