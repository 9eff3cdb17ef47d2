package org.timekeeping4j.benchmarks;

import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.EventRecorder;

/**
 * Recording an event ({@code EventRecorder.record}: one counter read and the ring's stores) with the parameter
 * history off ({@code timekeeping4j.history=0}: as before it existed) and on (60 s, its sampler thread running),
 * against {@link Clocks#ticks()} alone, in one run: the history must cost the hot path nothing.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar EventRecorderBenchmark -f 3 -wi 3 -i 5 -prof gc
 * </pre>
 */
public class EventRecorderBenchmark extends PerCallBenchmark {

    /** The history's length, set before the library's first use in the fork. */
    @Param({"0", "60"})
    public String history;

    private EventRecorder recorder;
    private long payload;

    @Setup(Level.Trial)
    public void start() {
        System.setProperty("timekeeping4j.history", history); // read once, at the library's first use
        recorder = new EventRecorder(1 << 16);
        if (!Clocks.awaitExactMode(Duration.ofSeconds(10))) {
            throw new IllegalStateException("exact mode does not serve: " + Clocks.diagnostics().why());
        }
        String kept = Clocks.diagnostics().history();
        if (history.equals("0") == kept.startsWith("kept")) {
            throw new IllegalStateException("history=" + history + " but: " + kept);
        }
    }

    @Benchmark
    public void record() {
        recorder.record(payload++);
    }

    @Benchmark
    public long ticks() {
        return Clocks.ticks();
    }
}
