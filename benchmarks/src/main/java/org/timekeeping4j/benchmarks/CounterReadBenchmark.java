package org.timekeeping4j.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.simulation.counter.HardwareCounter;

/**
 * The hardware counter reads, in ns per call: the bare stub downcalls (a {@code static final}
 * MethodHandle's {@code invokeExact} on the mapped rdtsc, lfence;rdtsc and rdtscp stubs), the Java-side
 * {@link HardwareCounter#read()} of each flavour through a {@link Clocksource} field (the virtual call that
 * the timekeeper makes), and {@code System.nanoTime} as the yardstick from the same run.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package                      # builds benchmarks/target/benchmarks.jar (JDK 25 toolchain)
 * JDK=/usr/lib/jvm/temurin-25-jdk-amd64               # any JDK 25+
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar CounterReadBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 * Seven benchmarks of 3 forks x (3 + 5) 1 s iterations: about four minutes. x86_64 only (the stubs of the
 * other architecture do not map and setup fails saying why). Targets: Java-side read &lt;= its bare stub + 1 ns;
 * rdtsc (unordered) &lt;= 0.5x nanoTime; rdtscp and lfence;rdtsc (ordered) &lt;= 1.0x nanoTime; 0 B/op.
 * Setup checks that the fast path serves, as the other benchmarks do. Results: docs/PERFORMANCE.md.
 */
public class CounterReadBenchmark extends PerCallBenchmark {

    // Clocksource-typed, as the timekeeper holds its counter: each fork runs one benchmark method, so the
    // call site sees one concrete class and the JIT inlines read() down to the downcall.
    private Clocksource rdtsc;
    private Clocksource lfenceRdtsc;
    private Clocksource rdtscp;

    @Setup
    public void setup() {
        FastPathReady.await();
        rdtsc = CounterInternals.counter(CounterRead.X86_RDTSC);
        lfenceRdtsc = CounterInternals.counter(CounterRead.X86_LFENCE_RDTSC);
        rdtscp = CounterInternals.counter(CounterRead.X86_RDTSCP);
    }

    @Benchmark
    public long stubRdtsc() throws Throwable {
        return (long) CounterInternals.RDTSC.invokeExact();
    }

    @Benchmark
    public long stubLfenceRdtsc() throws Throwable {
        return (long) CounterInternals.LFENCE_RDTSC.invokeExact();
    }

    @Benchmark
    public long stubRdtscp() throws Throwable {
        return (long) CounterInternals.RDTSCP_NOAUX.invokeExact();
    }

    @Benchmark
    public long readRdtsc() {
        return rdtsc.read();
    }

    @Benchmark
    public long readLfenceRdtsc() {
        return lfenceRdtsc.read();
    }

    @Benchmark
    public long readRdtscp() {
        return rdtscp.read();
    }
}
