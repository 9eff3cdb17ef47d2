package org.timekeeping4j.benchmarks;

import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.TimeSpec;

/**
 * Every clock read that exists today, side by side, in ns per call: the JDK's three clocks and timekeeping4j's
 * kernel (vDSO), forced-syscall and TimeSpec reads. Ratios go against {@code systemNanoTime} from the same run.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package                      # builds benchmarks/target/benchmarks.jar (JDK 25 toolchain)
 * JDK=/usr/lib/jvm/temurin-25-jdk-amd64               # any JDK 25+
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar ClockReadBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 * Iterations are 1 s (PerCallBenchmark), so the whole class takes about seven minutes. {@code -prof gc} reports
 * {@code gc.alloc.rate.norm}: every read path here must show 0 B/op ({@code instantNow} returns its Instant and
 * shows the JDK's 24 B/op; {@code instantNowAsNanos} shows that escape analysis removes it when it does not escape).
 * Results and their date: docs/PERFORMANCE.md.
 *
 * <p>The user-space fast clocks (Clocks.nanos, ticks, snapshot) are measured by {@link FastClockBenchmark}, the
 * counter reads by {@link CounterReadBenchmark} and the timekeeper by {@link TimekeeperReadBenchmark}.
 */
public class ClockReadBenchmark extends PerCallBenchmark {

    /** The clocks read through {@code KernelClocks.nanos}. */
    @State(Scope.Thread)
    public static class KernelClock {
        @Param({"MONOTONIC", "REALTIME", "MONOTONIC_RAW", "BOOTTIME", "TAI", "MONOTONIC_COARSE", "REALTIME_COARSE"})
        public ClockId clock;
    }

    private final TimeSpec timeSpec = new TimeSpec();

    @Benchmark
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }

    @Benchmark
    public Instant instantNow() {
        return Instant.now();
    }

    @Benchmark
    public long instantNowAsNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Benchmark
    public long kernelNanos(KernelClock k) {
        return KernelClocks.nanos(k.clock);
    }

    /** The clock as most callers write it, a constant: the kernel path's target is 1.05x nanoTime at most. */
    @Benchmark
    public long kernelNanosMonotonicConstant() {
        return KernelClocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long kernelNanosRealtimeConstant() {
        return KernelClocks.nanos(ClockId.REALTIME);
    }

    @Benchmark
    public long syscallNanosMonotonic() {
        return KernelClocks.syscallNanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public TimeSpec kernelTimeMonotonic() {
        return KernelClocks.time(ClockId.MONOTONIC, timeSpec);
    }
}
