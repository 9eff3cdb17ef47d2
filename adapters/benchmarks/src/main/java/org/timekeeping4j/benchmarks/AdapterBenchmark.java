package org.timekeeping4j.benchmarks;

import java.util.concurrent.TimeUnit;
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
 * What every adapter benchmark shares (JMH reads these annotations and helper methods from the superclass): ns per
 * call, averaged, 3 warm-up and 5 measured iterations of 1 s in one fork, one shared state, and the wait for the
 * fast path. A class whose framework needs no internal JDK access narrows {@link Fork} on itself.
 *
 * <p>Run (java must be a JDK 25; add {@code -prof gc} to see allocation per read):
 * <pre>
 * mvn -B -Pjmh -pl adapters/benchmarks -am package -DskipTests
 * java -jar adapters/benchmarks/target/benchmarks.jar NAME
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
public abstract class AdapterBenchmark {

    @Setup(Level.Trial)
    public void awaitExactMode() {
        FastPathReady.await();
    }

    @TearDown(Level.Iteration)
    public void checkFastPath() {
        FastPathReady.check();
    }
}
