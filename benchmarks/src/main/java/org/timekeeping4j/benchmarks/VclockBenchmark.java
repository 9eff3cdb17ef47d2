package org.timekeeping4j.benchmarks;

import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * Exact mode on whichever clocksource the host runs now (tsc, kvm-clock), side by side with the JDK's own
 * calls: {@code Clocks.nanos(MONOTONIC)} against {@code System.nanoTime}, {@code Clocks.nanos(REALTIME)}
 * against {@code Instant.now()}, and the kernel path ({@code Clocks.kernelNanos}) that a fallback takes.
 * Setup refuses to run where exact mode does not serve, and says which vclock serves
 * ({@code Clocks.kernelData()}), so a figure cannot silently be the tracker's or the kernel's.
 *
 * <pre>
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VclockBenchmark -f 3 -wi 3 -i 5 -prof gc
 * # a fallback on every read (kvm-clock with the pvclock reader switched off):
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VclockBenchmark -f 3 -wi 3 -i 5 -jvmArgsAppend -Dtimekeeping4j.vclock=off
 * </pre>
 * Targets on kvm-clock: nanos(MONOTONIC) &lt;= 0.90x nanoTime, nanos(REALTIME) &lt;= 0.70x Instant.now. Results:
 * docs/PERFORMANCE.md.
 */
public class VclockBenchmark extends PerCallBenchmark {

    @Setup(Level.Trial)
    public void setup() {
        if (!Clocks.kernelData().enabled()) {
            throw new IllegalStateException("exact mode does not serve here: " + Clocks.kernelData().reason());
        }
        System.out.println("# vclock: " + Clocks.kernelData().vclock());
    }

    @Benchmark
    public Instant instantNow() {
        return Instant.now();
    }

    @Benchmark
    public long nanosMonotonic() {
        return Clocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long nanosRealtime() {
        return Clocks.nanos(ClockId.REALTIME);
    }

    @Benchmark
    public long kernelNanosMonotonic() {
        return Clocks.kernelNanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long kernelNanosRealtime() {
        return Clocks.kernelNanos(ClockId.REALTIME);
    }
}
