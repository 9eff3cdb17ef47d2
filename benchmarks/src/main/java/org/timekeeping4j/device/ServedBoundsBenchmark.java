package org.timekeeping4j.device;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.benchmarks.PerCallBenchmark;

/**
 * The served bounds' read ({@code BoundedClock.system()}'s) against {@code Clocks.nanos(REALTIME)} in the same run:
 * issue 45 asks for at most 1.5x; and its bounds on TAI ({@code nowTai}) against {@code Clocks.nanos(TAI)}. The source is a fixed SYNCHRONIZED anchor (the read's cost does not depend on the
 * source: a refresher samples it off the read path), so the bounded path, not the unbounded shortcut, is timed.
 * Beside them, the kernel's own answer through adjtimex (a system call and an allocation per read).
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar ServedBoundsBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 */
public class ServedBoundsBenchmark extends PerCallBenchmark {

    /** A served clock over a fixed anchor, shared by the threads as the process's instance is. */
    @State(Scope.Benchmark)
    public static class Served {
        ServedBounds clock;
        BoundedClock adjtimex;

        @Setup(Level.Trial)
        public void anchor() {
            clock = new ServedBounds(new BoundSource() {
                @Override
                public ServedBounds.Anchor sample() {
                    long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
                    long real = Clocks.nanos(ClockId.REALTIME);
                    return new ServedBounds.Anchor(raw, real - raw, 25_000, 15_000, TimeBounds.Status.SYNCHRONIZED,
                            Long.MAX_VALUE, Long.MAX_VALUE, "benchmark");
                }

                @Override
                public int periodMillis() {
                    return 1000;
                }

                @Override
                public String description() {
                    return "benchmark";
                }
            });
            clock.refresh(false);
            adjtimex = BoundedClock.adjtimex();
        }
    }

    private final TimeBounds holder = new TimeBounds();

    @Benchmark
    public long nanosRealtime() {
        return Clocks.nanos(ClockId.REALTIME);
    }

    @Benchmark
    public long servedBounds(Served s) {
        return s.clock.now(holder).latestNanos();
    }

    /** The check a read makes after its REALTIME read: REALTIME - MONOTONIC from the kernel's data. */
    @Benchmark
    public long realtimeLead() {
        return org.timekeeping4j.vdso.KernelVdso.realtimeLead();
    }

    @Benchmark
    public long nanosTai() {
        return Clocks.nanos(ClockId.TAI);
    }

    @Benchmark
    public long servedTaiBounds(Served s) {
        return s.clock.nowTai(holder).latestNanos();
    }

    @Benchmark
    public long adjtimexBounds(Served s) {
        return s.adjtimex.now(holder).latestNanos();
    }
}
