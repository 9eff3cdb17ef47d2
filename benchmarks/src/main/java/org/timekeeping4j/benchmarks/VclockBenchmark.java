package org.timekeeping4j.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * Exact mode on whichever clocksource the host runs now (tsc, kvm-clock), side by side with the JDK's own
 * calls: {@code Clocks.nanos(MONOTONIC)} against {@code System.nanoTime}, {@code Clocks.nanos(REALTIME)}
 * against {@code Instant.now()}, {@code Clocks.ticks()} and {@code Clocks.nanosUnordered(MONOTONIC)}, and the
 * kernel path ({@code KernelClocks.nanos}) that a fallback takes.
 * Setup refuses to run where exact mode does not serve, and says which vclock serves
 * ({@code Clocks.diagnostics().vdsoData()}), so a figure cannot silently be the kernel's.
 *
 * <pre>
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VclockBenchmark -f 3 -wi 3 -i 5 -prof gc
 * # started on tsc, then kvm-clock (root; the clocksource is restored at each trial's end):
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VclockBenchmark -f 3 -wi 3 -i 5 -jvmArgsAppend -Dtk4j.bench.switchTo=kvm-clock
 * # the same with a fallback on every read (the pvclock reader switched off: one downcall that completes in clock_gettime):
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VclockBenchmark -f 3 -wi 3 -i 5 \
 *     -jvmArgsAppend "-Dtk4j.bench.switchTo=kvm-clock -Dtimekeeping4j.vclock=off"
 * </pre>
 * Targets on kvm-clock: nanos(MONOTONIC) &lt;= 0.90x nanoTime, nanos(REALTIME) &lt;= 0.70x Instant.now. Results:
 * docs/PERFORMANCE.md.
 */
public class VclockBenchmark extends PerCallBenchmark {

    /**
     * {@code tk4j.bench.switchTo}: a clocksource to switch the host to after exact mode's discovery (root only;
     * restored at the trial's end), e.g. kvm-clock: a process that found tsc and then meets kvm-clock, its pvclock
     * page read by exact mode, or with {@code -Dtimekeeping4j.vclock=off} answered by the fallback on every read.
     */
    static final String SWITCH_TO = System.getProperty("tk4j.bench.switchTo");
    private static final Path CURRENT = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    private String original;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        if (!Clocks.diagnostics().vdsoData().serves()) {
            throw new IllegalStateException("exact mode does not serve here: " + Clocks.diagnostics().vdsoData().why());
        }
        if (SWITCH_TO != null) {
            original = Files.readString(CURRENT).trim();
            Files.writeString(CURRENT, SWITCH_TO);
        }
        System.out.println("# vclock: " + Clocks.diagnostics().vdsoData().vclock());
    }

    @TearDown(Level.Trial)
    public void restore() throws IOException {
        System.out.println("# reads served by " + (KernelVdso.clockGettimeServes() ? "clock_gettime" : "the read")
                + ", " + KernelVdso.entrySwitches() + " switches");
        if (original != null) {
            Files.writeString(CURRENT, original);
        }
    }

    @Benchmark
    public Instant instantNow() {
        return Instant.now();
    }

    @Benchmark
    public long nanosMonotonic() {
        return Clocks.nanos(ClockId.MONOTONIC);
    }

    /**
     * MONOTONIC as exact mode read it before its machine code completed its own fallback: the read, then (where it
     * returned the fallback value) KernelClocks.nanos, two downcalls. The baseline of {@link #nanosMonotonic}'s
     * fallback.
     */
    @Benchmark
    public long twoDowncallFallbackMonotonic() {
        long v = KernelVdso.monotonicWithoutOwnFallback();
        return v != VdsoStub.FALLBACK ? v : KernelClocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long nanosRealtime() {
        return Clocks.nanos(ClockId.REALTIME);
    }

    /** The counter read unordered (rdtsc on x86): what Clocks.ticks() returns in exact mode, on any clocksource. */
    @Benchmark
    public long ticks() {
        return Clocks.ticks();
    }

    @Benchmark
    public long nanosUnorderedMonotonic() {
        return Clocks.nanosUnordered(ClockId.MONOTONIC);
    }

    @Benchmark
    public long kernelNanosMonotonic() {
        return KernelClocks.nanos(ClockId.MONOTONIC);
    }

    @Benchmark
    public long kernelNanosRealtime() {
        return KernelClocks.nanos(ClockId.REALTIME);
    }
}
