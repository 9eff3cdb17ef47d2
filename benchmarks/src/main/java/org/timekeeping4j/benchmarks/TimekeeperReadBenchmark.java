package org.timekeeping4j.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.simulation.counter.CounterSelection;
import org.timekeeping4j.simulation.counter.CounterSelector;
import org.timekeeping4j.simulation.counter.HardwareCounter;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The timekeeper's seqlock read, in ns per call: a {@link Timekeeper} of its own over the ordered
 * hardware counter the selection chose (rdtscp or lfence;rdtsc on x86), read for each clock, against the bare
 * {@code counter.read()} through the same field in the same run. The difference is the read path itself:
 * sequence load, field copies, validation, 64-bit multiply-shift and the clock's offset.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package                      # builds benchmarks/target/benchmarks.jar (JDK 25 toolchain)
 * JDK=/usr/lib/jvm/temurin-25-jdk-amd64               # any JDK 25+
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar TimekeeperReadBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 * Nine benchmarks (two of them a control over the unordered counter) of 3 forks x (3 + 5) 1 s iterations:
 * about five minutes. The timekeeper is built with
 * {@code Timekeeper.builder(counter).build()} seeded from the kernel's clocks and updated before every
 * iteration (as an updater thread would), so every read takes the 64-bit conversion, never the
 * 128-bit one beyond max_cycles (4 s). Targets: every clock &lt;= counter read + 2 ns; 0 B/op.
 * Results: docs/PERFORMANCE.md.
 */
public class TimekeeperReadBenchmark extends PerCallBenchmark {

    private Clocksource counter;
    private Timekeeper timekeeper;
    // Control: the same timekeeper over the unordered counter (rdtsc), which does not wait for earlier loads.
    // Not a configuration to use (monotonicity across updates needs an ordered counter, see Timekeeper);
    // it separates the cost of the read path's instructions from the cost of ordering the counter after them.
    private Clocksource unorderedCounter;
    private Timekeeper unorderedTimekeeper;
    /** Read through a field so that {@code nanos(ClockId)}'s switch is not folded away. */
    private ClockId clockId = ClockId.MONOTONIC;

    @Setup(Level.Trial)
    public void setup() {
        CounterSelection s = CounterSelector.selected();
        if (!(s.clocksource() instanceof HardwareCounter h) || !h.isOrdered()) {
            throw new IllegalStateException("no ordered hardware counter selected: " + s);
        }
        counter = h;
        timekeeper = Timekeeper.builder(counter)
                .realtimeNanos(KernelClocks.nanos(ClockId.REALTIME))
                .monotonicNanos(KernelClocks.nanos(ClockId.MONOTONIC))
                .taiOffsetSeconds(37)
                .build();
        timekeeper.update();
        if (!(s.ticks() instanceof HardwareCounter u) || u.isOrdered()) {
            throw new IllegalStateException("no unordered hardware counter selected: " + s);
        }
        unorderedCounter = u;
        unorderedTimekeeper = Timekeeper.builder(unorderedCounter)
                .monotonicNanos(KernelClocks.nanos(ClockId.MONOTONIC))
                .build();
        unorderedTimekeeper.update();
    }

    @Setup(Level.Iteration)
    public void update() {
        timekeeper.update(); // an iteration lasts 1 s: deltas stay well below max_cycles
        unorderedTimekeeper.update();
    }

    @Benchmark
    public long counterRead() {
        return counter.read();
    }

    @Benchmark
    public long monotonicNanos() {
        return timekeeper.monotonicNanos();
    }

    @Benchmark
    public long realtimeNanos() {
        return timekeeper.realtimeNanos();
    }

    @Benchmark
    public long monotonicRawNanos() {
        return timekeeper.monotonicRawNanos();
    }

    @Benchmark
    public long boottimeNanos() {
        return timekeeper.boottimeNanos();
    }

    @Benchmark
    public long taiNanos() {
        return timekeeper.taiNanos();
    }

    @Benchmark
    public long nanosById() {
        return timekeeper.nanos(clockId);
    }

    @Benchmark
    public long controlCounterReadUnordered() {
        return unorderedCounter.read();
    }

    @Benchmark
    public long controlMonotonicNanosUnordered() {
        return unorderedTimekeeper.monotonicNanos();
    }
}
