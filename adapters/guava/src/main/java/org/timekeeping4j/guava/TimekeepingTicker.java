package org.timekeeping4j.guava;

import java.util.Objects;
import com.google.common.base.Ticker;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * A Guava {@link Ticker} reading timekeeping4j's fast path, in place of {@link Ticker#systemTicker()}
 * ({@code System.nanoTime}, CLOCK_MONOTONIC): for {@code Stopwatch}, {@code CacheBuilder} and anything else
 * that takes a Ticker.
 *
 * <pre>{@code
 * Stopwatch stopwatch = Stopwatch.createStarted(TimekeepingTicker.monotonic());
 * Cache<String, Session> sessions = CacheBuilder.newBuilder()
 *         .expireAfterWrite(Duration.ofMinutes(30))
 *         .ticker(TimekeepingTicker.boottime())   // time asleep counts toward the 30 minutes
 *         .build();
 * }</pre>
 *
 * <p>{@link #monotonic()} reads CLOCK_MONOTONIC, System.nanoTime's clock, so it changes only the cost of a
 * read. {@link #boottime()} reads CLOCK_BOOTTIME, which also counts the time the machine was suspended: a
 * stopwatch running across a suspend includes it, and a cache entry written before a suspend has aged by the
 * suspended time once the machine resumes.
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; {@link #read()}
 * allocates nothing. Both clocks never step backwards and run at the NTP-slewed rate.
 */
public final class TimekeepingTicker extends Ticker {

    private final ClockId clock;
    private final ClockReader reader;

    /** Tests substitute a recording reader here; users take {@link #monotonic()} or {@link #boottime()}. */
    TimekeepingTicker(ClockId clock, ClockReader reader) {
        this.clock = clock;
        this.reader = reader;
    }

    /**
     * The shared CLOCK_MONOTONIC ticker.
     *
     * @return the ticker
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingTicker monotonic() {
        return Monotonic.INSTANCE;
    }

    /**
     * The shared CLOCK_BOOTTIME ticker: CLOCK_MONOTONIC plus the time spent in suspend.
     *
     * @return the ticker
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingTicker boottime() {
        return Boottime.INSTANCE;
    }

    /**
     * A ticker reading {@code reader} as {@code clock} instead of the kernel's clock: for tests, with the clocks of
     * timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param clock  the clock {@code reader} stands for ({@link #clock()} says it)
     * @param reader read for every tick, in nanoseconds
     * @return the ticker
     */
    public static TimekeepingTicker of(ClockId clock, ClockReader reader) {
        return new TimekeepingTicker(Objects.requireNonNull(clock, "clock"), Objects.requireNonNull(reader, "reader"));
    }

    /** {@return the clock this ticker reads} */
    public ClockId clock() {
        return clock;
    }

    /** {@return the clock's value in nanoseconds; only differences are meaningful} */
    @Override
    public long read() {
        return reader.nanos();
    }

    @Override
    public String toString() {
        return "TimekeepingTicker[" + clock + "]";
    }

    // Holders: each clock's reader is bound on first use of that ticker only.
    private static final class Monotonic {
        static final TimekeepingTicker INSTANCE =
                new TimekeepingTicker(ClockId.MONOTONIC, Clocks.reader(ClockId.MONOTONIC));
    }

    private static final class Boottime {
        static final TimekeepingTicker INSTANCE =
                new TimekeepingTicker(ClockId.BOOTTIME, Clocks.reader(ClockId.BOOTTIME));
    }
}
