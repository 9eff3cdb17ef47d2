package org.timekeeping4j.benchmarks;

import com.github.benmanes.caffeine.cache.Ticker;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.timekeeping4j.caffeine.TimekeepingTicker;

/**
 * Caffeine: {@code Ticker.systemTicker()} (System.nanoTime, CLOCK_MONOTONIC) against timekeeping4j's
 * {@code TimekeepingTicker.monotonic()} (the same clock) and {@code boottime()} (CLOCK_BOOTTIME).
 *
 * <p>Run (java must be a JDK 25; add {@code -prof gc} to see allocation per read):
 * <pre>
 * mvn -B -Pjmh -pl adapters/benchmarks -am package -DskipTests
 * java -jar adapters/benchmarks/target/benchmarks.jar CaffeineTickerBenchmark -f 3 -wi 3 -i 5
 * </pre>
 * Compare scores within one run only: the ratio is the result, absolute numbers depend on the machine. The
 * trial waits (up to 20 s) until the fast path serves from the CPU counter and fails if any iteration ends on
 * the kernel fallback, so the timekeeping4j scores are the counter path's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CaffeineTickerBenchmark {

    // Ticker-typed fields, as a cache or stopwatch holds its ticker: each fork runs one benchmark method, so
    // the call site sees one concrete class.
    private final Ticker system = Ticker.systemTicker();
    private final Ticker monotonic = TimekeepingTicker.monotonic();
    private final Ticker boottime = TimekeepingTicker.boottime();

    @Setup(Level.Trial)
    public void awaitFastPath() {
        FastPathReady.await();
    }

    @TearDown(Level.Iteration)
    public void checkFastPath() {
        FastPathReady.check();
    }

    @Benchmark
    public long systemTicker() {
        return system.read();
    }

    @Benchmark
    public long timekeepingMonotonic() {
        return monotonic.read();
    }

    @Benchmark
    public long timekeepingBoottime() {
        return boottime.read();
    }
}
