package org.timekeeping4j.benchmarks;

import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.core.util.Clock;
import org.apache.logging.log4j.core.util.ClockFactory;
import org.timekeeping4j.log4j.TimekeepingLog4jClock;
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
 * Log4j 2: the clock {@code ClockFactory} builds without {@code log4j2.clock} (Log4j's default) against
 * {@link TimekeepingLog4jClock}, filling a reused {@link MutableInstant} as a log event does.
 *
 * <p>Run (java must be a JDK 25; add {@code -prof gc} to see allocation per read):
 * <pre>
 * mvn -B -Pjmh -pl adapters/benchmarks -am package -DskipTests
 * java -jar adapters/benchmarks/target/benchmarks.jar Log4jClockBenchmark
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
public class Log4jClockBenchmark {

    /** Log4j's default unless log4j2.clock is set on the benchmark's command line. */
    private final Clock log4jDefault = ClockFactory.getClock();
    private final TimekeepingLog4jClock timekeeping = new TimekeepingLog4jClock();
    private final MutableInstant instant = new MutableInstant();

    @Setup(Level.Trial)
    public void awaitFastPath() {
        FastPathReady.await();
    }

    @TearDown(Level.Iteration)
    public void checkFastPath() {
        FastPathReady.check();
    }

    @Benchmark
    public MutableInstant initLog4jDefault() {
        instant.initFrom(log4jDefault); // PreciseClock.init where the default is one, else milliseconds
        return instant;
    }

    @Benchmark
    public MutableInstant initTimekeeping() {
        timekeeping.init(instant);
        return instant;
    }
}
