package org.timekeeping4j.benchmarks;

import io.micrometer.core.instrument.Clock;
import org.timekeeping4j.micrometer.TimekeepingMicrometerClock;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Micrometer: {@code Clock.SYSTEM} against {@link TimekeepingMicrometerClock}, both methods.
 *
 * <p>Run (the build and how to read the scores: {@link AdapterBenchmark}):
 * <pre>
 * java -jar adapters/benchmarks/target/benchmarks.jar MicrometerClockBenchmark
 * </pre>
 */
public class MicrometerClockBenchmark extends AdapterBenchmark {

    private final Clock system = Clock.SYSTEM;
    private final Clock timekeeping = TimekeepingMicrometerClock.getInstance();

    @Benchmark
    public long wallTimeSystem() {
        return system.wallTime();
    }

    @Benchmark
    public long wallTimeTimekeeping() {
        return timekeeping.wallTime();
    }

    @Benchmark
    public long monotonicTimeSystem() {
        return system.monotonicTime();
    }

    @Benchmark
    public long monotonicTimeTimekeeping() {
        return timekeeping.monotonicTime();
    }
}
