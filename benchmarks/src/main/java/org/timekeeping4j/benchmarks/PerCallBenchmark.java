package org.timekeeping4j.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every benchmark of this module shares (JMH reads these annotations from the superclass): ns per call,
 * averaged, 3 forks of 3 warm-up and 5 measured iterations of 1 s, state per thread, native access for the FFM
 * reads, and {@link #systemNanoTime()} as the yardstick each class's ratios are taken against within the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public abstract class PerCallBenchmark {

    @Benchmark
    public long systemNanoTime() {
        return System.nanoTime();
    }
}
