package org.timekeeping4j.benchmarks;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemEpochNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.timekeeping4j.agrona.TimekeepingEpochClock;
import org.timekeeping4j.agrona.TimekeepingEpochNanoClock;
import org.timekeeping4j.agrona.TimekeepingNanoClock;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Agrona: {@code SystemEpochNanoClock}, {@code SystemNanoClock} and {@code SystemEpochClock} against the
 * timekeeping4j clocks for the same meanings.
 *
 * <p>Run (the build and how to read the scores: {@link AdapterBenchmark}):
 * <pre>
 * java -jar adapters/benchmarks/target/benchmarks.jar AgronaClockBenchmark
 * </pre>
 */
public class AgronaClockBenchmark extends AdapterBenchmark {

    private final EpochNanoClock systemEpochNano = SystemEpochNanoClock.INSTANCE;
    private final EpochNanoClock timekeepingEpochNano = TimekeepingEpochNanoClock.getInstance();
    private final NanoClock systemNano = SystemNanoClock.INSTANCE;
    private final NanoClock timekeepingNano = TimekeepingNanoClock.getInstance();
    private final EpochClock systemEpoch = SystemEpochClock.INSTANCE;
    private final EpochClock timekeepingEpoch = TimekeepingEpochClock.getInstance();

    @Benchmark
    public long epochNanoSystem() {
        return systemEpochNano.nanoTime();
    }

    @Benchmark
    public long epochNanoTimekeeping() {
        return timekeepingEpochNano.nanoTime();
    }

    @Benchmark
    public long nanoSystem() {
        return systemNano.nanoTime();
    }

    @Benchmark
    public long nanoTimekeeping() {
        return timekeepingNano.nanoTime();
    }

    @Benchmark
    public long epochMillisSystem() {
        return systemEpoch.time();
    }

    @Benchmark
    public long epochMillisTimekeeping() {
        return timekeepingEpoch.time();
    }
}
