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

/**
 * Agrona: {@code SystemEpochNanoClock}, {@code SystemNanoClock} and {@code SystemEpochClock} against the
 * timekeeping4j clocks for the same meanings.
 *
 * <p>Run (java must be a JDK 25; add {@code -prof gc} to see allocation per read):
 * <pre>
 * mvn -B -Pjmh -pl adapters/benchmarks -am package -DskipTests
 * java -jar adapters/benchmarks/target/benchmarks.jar AgronaClockBenchmark
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
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class AgronaClockBenchmark {

    private final EpochNanoClock systemEpochNano = SystemEpochNanoClock.INSTANCE;
    private final EpochNanoClock timekeepingEpochNano = TimekeepingEpochNanoClock.getInstance();
    private final NanoClock systemNano = SystemNanoClock.INSTANCE;
    private final NanoClock timekeepingNano = TimekeepingNanoClock.getInstance();
    private final EpochClock systemEpoch = SystemEpochClock.INSTANCE;
    private final EpochClock timekeepingEpoch = TimekeepingEpochClock.getInstance();

    @Setup(Level.Trial)
    public void awaitFastPath() {
        FastPathReady.await();
    }

    @TearDown(Level.Iteration)
    public void checkFastPath() {
        FastPathReady.check();
    }

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
