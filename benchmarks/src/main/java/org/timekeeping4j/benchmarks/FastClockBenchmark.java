package org.timekeeping4j.benchmarks;

import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.Snapshot;
import org.timekeeping4j.simulation.counter.CounterSelector;
import org.timekeeping4j.simulation.counter.HardwareCounter;

/**
 * The user-space fast clocks, in ns per call: {@code Clocks.nanos} for each fast clock and
 * MONOTONIC_COARSE, the bound {@code Clocks.reader(MONOTONIC)} reader, {@code Clocks.ticks()} and
 * {@code Clocks.snapshot}, against {@code System.nanoTime}, {@code Instant.now()} (returned, so it allocates)
 * and {@code KernelClocks.nanos(MONOTONIC_COARSE)} from the same run.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package                      # builds benchmarks/target/benchmarks.jar (JDK 25 toolchain)
 * JDK=/usr/lib/jvm/temurin-25-jdk-amd64               # any JDK 25+
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar FastClockBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 * Fourteen benchmarks of 3 forks x (3 + 5) 1 s iterations: about seven minutes. Setup fails where exact mode
 * does not serve; every iteration ends by checking that the fast
 * path is still serving MONOTONIC, so no figure here can silently be the kernel fallback's.
 * {@code nanos} takes its clock from a {@code @Param} field (the identity tests run on every call);
 * {@code nanosMonotonicConstant}/{@code nanosRealtimeConstant} pass the constant, as most callers write it.
 * Targets: nanos(MONOTONIC) &lt;= 0.9x nanoTime; nanos(REALTIME) &lt;= 0.7x Instant.now; ticks &lt;= 0.5x
 * nanoTime; the high-resolution clocks within 5% of each other; COARSE no slower than kernelNanos(COARSE);
 * 0 B/op everywhere except the returned Instant. Results: docs/PERFORMANCE.md.
 */
public class FastClockBenchmark extends PerCallBenchmark {

    /** The clocks read through {@code Clocks.nanos}. */
    @State(Scope.Thread)
    public static class FastClock {
        @Param({"REALTIME", "MONOTONIC", "MONOTONIC_RAW", "BOOTTIME", "TAI", "MONOTONIC_COARSE"})
        public ClockId clock;
    }

    private final Snapshot snapshot = new Snapshot();
    private ClockReader monotonic;

    @Setup(Level.Trial)
    public void setup() {
        FastPathReady.await();
        if (!(CounterSelector.selected().ticks() instanceof HardwareCounter h) || h.isOrdered()) {
            throw new IllegalStateException("ticks are not the unordered hardware counter: "
                    + CounterSelector.selected());
        }
        monotonic = Clocks.reader(ClockId.MONOTONIC);
    }

    @TearDown(Level.Iteration)
    public void check() {
        FastPathReady.check();
        if (snapshot.isValid() && !snapshot.isFromCounter()) {
            throw new IllegalStateException("snapshot took the kernel path: " + snapshot);
        }
    }

    @Benchmark
    public Instant instantNow() {
        return Instant.now();
    }

    @Benchmark
    public long kernelNanosMonotonicCoarse() {
        return KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
    }

    /** The same call as {@link #kernelNanosMonotonicCoarse} through Clocks.nanos: the COARSE target's pair. */
    @Benchmark
    public long nanosMonotonicCoarseConstant() {
        return Clocks.nanos(ClockId.MONOTONIC_COARSE);
    }

    /** The direct FFM read of the parameter's clock: the baseline of {@code nanos(clock)} with the same shape. */
    @Benchmark
    public long kernelNanos(FastClock c) {
        return KernelClocks.nanos(c.clock);
    }

    @Benchmark
    public long nanos(FastClock c) {
        return Clocks.nanos(c.clock);
    }

    @Benchmark
    public long nanosMonotonicConstant() {
        return Clocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long nanosRealtimeConstant() {
        return Clocks.nanos(ClockId.REALTIME);
    }

    /** Exact mode over an unordered counter read (rdtsc): no cross-thread order, same kernel arithmetic. */
    @Benchmark
    public long nanosUnorderedMonotonic() {
        return Clocks.nanosUnordered(ClockId.MONOTONIC);
    }

    @Benchmark
    public long kernelNanosMonotonicConstant() {
        return KernelClocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long clockReaderMonotonic() {
        return monotonic.nanos();
    }

    @Benchmark
    public long ticks() {
        return Clocks.ticks();
    }

    @Benchmark
    public long snapshotRealtime() {
        Clocks.snapshot(ClockId.REALTIME, snapshot);
        return snapshot.nanos();
    }
}
