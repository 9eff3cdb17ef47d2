package org.timekeeping4j.benchmarks;

import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.core.util.Clock;
import org.apache.logging.log4j.core.util.ClockFactory;
import org.timekeeping4j.log4j.TimekeepingLog4jClock;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Log4j 2: the clock {@code ClockFactory} builds without {@code log4j2.clock} (Log4j's default) against
 * {@link TimekeepingLog4jClock}, filling a reused {@link MutableInstant} as a log event does.
 *
 * <p>Run (the build and how to read the scores: {@link AdapterBenchmark}):
 * <pre>
 * java -jar adapters/benchmarks/target/benchmarks.jar Log4jClockBenchmark
 * </pre>
 */
public class Log4jClockBenchmark extends AdapterBenchmark {

    /** Log4j's default unless log4j2.clock is set on the benchmark's command line. */
    private final Clock log4jDefault = ClockFactory.getClock();
    private final TimekeepingLog4jClock timekeeping = new TimekeepingLog4jClock();
    private final MutableInstant instant = new MutableInstant();

    @Benchmark
    public MutableInstant initLog4jDefault() {
        instant.initFrom(log4jDefault); // PreciseClock.init where the default is one, else milliseconds
        return instant;
    }

    @Benchmark
    public MutableInstant initTimekeeping() {
        timekeeping.init(instant);
        return instant;
    }
}
