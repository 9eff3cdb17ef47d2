package org.timekeeping4j.benchmarks;

import com.google.common.base.Ticker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.timekeeping4j.guava.TimekeepingTicker;

/**
 * Guava: {@code Ticker.systemTicker()} (System.nanoTime, CLOCK_MONOTONIC) against timekeeping4j's
 * {@code TimekeepingTicker.monotonic()} (the same clock) and {@code boottime()} (CLOCK_BOOTTIME).
 *
 * <p>Run (the build and how to read the scores: {@link AdapterBenchmark}):
 * <pre>
 * java -jar adapters/benchmarks/target/benchmarks.jar GuavaTickerBenchmark -f 3 -wi 3 -i 5
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED") // no internal JDK access needed
public class GuavaTickerBenchmark extends AdapterBenchmark {

    // Ticker-typed fields, as a cache or stopwatch holds its ticker: each fork runs one benchmark method, so
    // the call site sees one concrete class.
    private final Ticker system = Ticker.systemTicker();
    private final Ticker monotonic = TimekeepingTicker.monotonic();
    private final Ticker boottime = TimekeepingTicker.boottime();

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
