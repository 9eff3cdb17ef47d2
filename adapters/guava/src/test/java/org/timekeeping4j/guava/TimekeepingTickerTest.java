package org.timekeeping4j.guava;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Stopwatch;
import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.timekeeping4j.testclocks.ManualClock;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;

class TimekeepingTickerTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    @Test
    void shouldReadMonotonicWithinKernelBrackets() {
        Ticker ticker = TimekeepingTicker.monotonic();
        assertWithinKernelBrackets(ClockId.MONOTONIC, ticker::read);
    }

    @Test
    void shouldReadBoottimeWithinKernelBrackets() {
        Ticker ticker = TimekeepingTicker.boottime();
        assertWithinKernelBrackets(ClockId.BOOTTIME, ticker::read);
    }

    @Test
    void shouldTimeAStopwatchWithinKernelBrackets() throws InterruptedException {
        long before = KernelClocks.nanos(ClockId.MONOTONIC);
        Stopwatch stopwatch = Stopwatch.createStarted(TimekeepingTicker.monotonic());
        long inside = KernelClocks.nanos(ClockId.MONOTONIC);
        Thread.sleep(2); // time must pass: the stopwatch times a span of its own, which the kernel reads bracket
        long insideEnd = KernelClocks.nanos(ClockId.MONOTONIC);
        stopwatch.stop();
        long after = KernelClocks.nanos(ClockId.MONOTONIC);

        // The stopwatch ran at least over [inside, insideEnd] and at most over [before, after].
        assertThat(stopwatch.elapsed(TimeUnit.NANOSECONDS)).isBetween(
                insideEnd - inside - 2 * AGREEMENT_BOUND_NANOS, after - before + 2 * AGREEMENT_BOUND_NANOS);
        assertThat(stopwatch.elapsed().toNanos()).isPositive();
    }

    @Test
    void shouldTimeAStopwatchByTheTickersTime() {
        ClockReader monotonic = Clocks.reader(ClockId.MONOTONIC);
        AtomicLong advanced = new AtomicLong();
        Stopwatch stopwatch = Stopwatch.createStarted(
                new TimekeepingTicker(ClockId.MONOTONIC, () -> monotonic.nanos() + advanced.get()));

        advanced.addAndGet(Duration.ofHours(3).toNanos());
        stopwatch.stop();

        // Three hours of ticker time, plus the real nanoseconds the test took.
        assertThat(stopwatch.elapsed()).isBetween(Duration.ofHours(3), Duration.ofHours(3).plusSeconds(60));
    }

    @Test
    void shouldExpireCacheEntriesAfterWriteByTheTickersTime() {
        ClockReader monotonic = Clocks.reader(ClockId.MONOTONIC);
        AtomicLong advanced = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Ticker ticker = new TimekeepingTicker(ClockId.MONOTONIC, () -> {
            reads.incrementAndGet();
            return monotonic.nanos() + advanced.get();
        });
        Cache<String, String> cache = CacheBuilder.newBuilder()
                .expireAfterWrite(Duration.ofMinutes(10))
                .ticker(ticker)
                .build();

        cache.put("key", "value");
        advanced.addAndGet(Duration.ofMinutes(9).toNanos());
        assertThat(cache.getIfPresent("key")).as("after 9 of 10 minutes").isEqualTo("value");

        advanced.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(cache.getIfPresent("key")).as("after 11 of 10 minutes").isNull();
        assertThat(reads.get()).as("reads of the timekeeping4j clock by the cache").isPositive();
    }

    /** {@code read} lies between kernel reads of {@code clock} taken just before and just after it. */
    private static void assertWithinKernelBrackets(ClockId clock, LongSupplier read) {
        long before = KernelClocks.nanos(clock);
        long value = read.getAsLong();
        long after = KernelClocks.nanos(clock);
        assertThat(value).isBetween(before - AGREEMENT_BOUND_NANOS, after + AGREEMENT_BOUND_NANOS);
    }

    /** A cache that expires after 30 minutes, tested in microseconds: the ticker reads a clock the test moves. */
    @Test
    void aTestClockShouldDriveACacheWithoutSleeping() {
        ManualClock clock = ManualClock.startingAt(0);
        TimekeepingTicker ticker = TimekeepingTicker.of(ClockId.MONOTONIC, clock);
        Cache<String, String> cache = CacheBuilder.newBuilder().expireAfterWrite(30, TimeUnit.MINUTES)
                .ticker(ticker).build();
        cache.put("session", "alice");
        clock.advance(Duration.ofMinutes(29));
        assertThat(cache.getIfPresent("session")).isEqualTo("alice");
        clock.advance(Duration.ofMinutes(1));
        assertThat(cache.getIfPresent("session")).isNull();
        assertThat(ticker.clock()).isEqualTo(ClockId.MONOTONIC);
        assertThat(ticker.read()).isEqualTo(Duration.ofMinutes(30).toNanos());
    }
}
