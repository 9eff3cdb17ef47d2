package org.timekeeping4j.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
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
        assertThat(TimekeepingTicker.monotonic().clock()).isEqualTo(ClockId.MONOTONIC);
    }

    @Test
    void shouldReadBoottimeWithinKernelBrackets() {
        Ticker ticker = TimekeepingTicker.boottime();
        assertWithinKernelBrackets(ClockId.BOOTTIME, ticker::read);
        assertThat(TimekeepingTicker.boottime().clock()).isEqualTo(ClockId.BOOTTIME);
    }

    @Test
    void shouldExpireAfterWriteByTheTickersTime() {
        // The real MONOTONIC reader, moved forward by the test: expiry follows the ticker, not System.nanoTime.
        ClockReader monotonic = Clocks.reader(ClockId.MONOTONIC);
        AtomicLong advanced = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Ticker ticker = new TimekeepingTicker(ClockId.MONOTONIC, () -> {
            reads.incrementAndGet();
            return monotonic.nanos() + advanced.get();
        });
        Cache<String, String> cache = Caffeine.newBuilder()
                .expireAfterWrite(Duration.ofMinutes(10))
                .ticker(ticker)
                .executor(Runnable::run)
                .build();

        cache.put("key", "value");
        advanced.addAndGet(Duration.ofMinutes(9).toNanos());
        assertThat(cache.getIfPresent("key")).as("after 9 of 10 minutes").isEqualTo("value");

        advanced.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(cache.getIfPresent("key")).as("after 11 of 10 minutes").isNull();
        assertThat(reads.get()).as("reads of the timekeeping4j clock by Caffeine").isPositive();
    }

    @Test
    void shouldExpireOnceTheRealClockPassesTheDuration() {
        Ticker ticker = TimekeepingTicker.monotonic();
        long expiry = Duration.ofMillis(20).toNanos();
        Cache<String, String> cache = Caffeine.newBuilder()
                .expireAfterWrite(Duration.ofNanos(expiry))
                .ticker(ticker)
                .executor(Runnable::run)
                .build();

        long written = ticker.read();
        cache.put("key", "value");
        // Wait on the ticker itself: once it has moved past the expiry since the write, the entry is gone.
        await("the ticker past the expiry").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> ticker.read() - written > expiry);
        assertThat(cache.getIfPresent("key")).isNull();
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
        Cache<String, String> cache = Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(30))
                .executor(Runnable::run).ticker(TimekeepingTicker.of(ClockId.BOOTTIME, clock)).build();
        cache.put("session", "alice");
        clock.advance(Duration.ofMinutes(29));
        assertThat(cache.getIfPresent("session")).isEqualTo("alice");
        clock.advance(Duration.ofMinutes(1));
        assertThat(cache.getIfPresent("session")).isNull();
    }
}
