package org.timekeeping4j.benchmarks;

import io.opentelemetry.sdk.common.Clock;
import org.timekeeping4j.opentelemetry.TimekeepingOtelClock;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * OpenTelemetry SDK: {@code Clock.getDefault()} against {@link TimekeepingOtelClock}, every method: {@code now()},
 * {@code now(false)} (the millisecond clock) and {@code nanoTime()}.
 *
 * <p>Run (the build and how to read the scores: {@link AdapterBenchmark}):
 * <pre>
 * java -jar adapters/benchmarks/target/benchmarks.jar OpenTelemetryClockBenchmark
 * </pre>
 */
public class OpenTelemetryClockBenchmark extends AdapterBenchmark {

    private final Clock sdkDefault = Clock.getDefault();
    private final Clock timekeeping = TimekeepingOtelClock.getInstance();

    @Benchmark
    public long nowSdkDefault() {
        return sdkDefault.now();
    }

    @Benchmark
    public long nowTimekeeping() {
        return timekeeping.now();
    }

    @Benchmark
    public long nowLowPrecisionSdkDefault() {
        return sdkDefault.now(false);
    }

    @Benchmark
    public long nowLowPrecisionTimekeeping() {
        return timekeeping.now(false);
    }

    @Benchmark
    public long nanoTimeSdkDefault() {
        return sdkDefault.nanoTime();
    }

    @Benchmark
    public long nanoTimeTimekeeping() {
        return timekeeping.nanoTime();
    }
}
