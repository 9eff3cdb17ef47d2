package org.timekeeping4j.opentelemetry;

import java.util.Objects;
import io.opentelemetry.sdk.common.Clock;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockReader;
import org.timekeeping4j.Clocks;

/**
 * An OpenTelemetry SDK {@link Clock} reading timekeeping4j's fast path: {@link #now()} is CLOCK_REALTIME in
 * nanoseconds since the epoch, {@link #nanoTime()} is CLOCK_MONOTONIC in nanoseconds since boot.
 *
 * <pre>{@code
 * SdkTracerProvider tracing = SdkTracerProvider.builder()
 *         .setClock(TimekeepingOtelClock.getInstance())
 *         ...
 *         .build();
 * }</pre>
 *
 * <p><b>Assumptions and Guarantees.</b> Stateless and safe for any number of threads; neither method
 * allocates. The SDK anchors each trace on one {@code now()} and derives later span timestamps from
 * {@code nanoTime()} deltas, so both clocks must advance at the same (NTP-slewed) rate: REALTIME and
 * MONOTONIC do, which {@code System.nanoTime()} alone does not promise.
 */
public final class TimekeepingOtelClock implements Clock {

    private static final TimekeepingOtelClock INSTANCE =
            new TimekeepingOtelClock(Clocks.reader(ClockId.REALTIME), Clocks.reader(ClockId.MONOTONIC));

    private final ClockReader realtime;
    private final ClockReader monotonic;

    /** Tests substitute recording readers here; users take {@link #getInstance()}. */
    TimekeepingOtelClock(ClockReader realtime, ClockReader monotonic) {
        this.realtime = realtime;
        this.monotonic = monotonic;
    }

    /**
     * The shared instance.
     *
     * @return the instance
     * @throws ExceptionInInitializerError wrapping {@link UnsupportedOperationException} off Linux
     */
    public static TimekeepingOtelClock getInstance() {
        return INSTANCE;
    }

    /**
     * A clock reading {@code realtime} and {@code monotonic} instead of the kernel's clocks: for tests, with the
     * clocks of timekeeping4j-test-clocks (a ManualClock the test advances), or any other {@link ClockReader}.
     *
     * @param realtime  read for the wall time, in nanoseconds since the epoch
     * @param monotonic read for the monotonic time, in nanoseconds
     * @return the clock
     */
    public static TimekeepingOtelClock of(ClockReader realtime, ClockReader monotonic) {
        return new TimekeepingOtelClock(Objects.requireNonNull(realtime, "realtime"), Objects.requireNonNull(monotonic, "monotonic"));
    }

    /** CLOCK_REALTIME in nanoseconds since the Unix epoch. */
    @Override
    public long now() {
        return realtime.nanos();
    }

    /**
     * {@link #now()} where {@code highPrecision}; else REALTIME cut to whole milliseconds, as the SDK's own clock
     * gives ({@code System.currentTimeMillis()}), at the cost of one REALTIME read, as that has (the counter read is
     * the cost of both). CLOCK_REALTIME_COARSE would be cheaper, but lags REALTIME by a kernel tick or more (6 ms
     * seen at HZ=250): a low-precision timestamp must not fall before a precise one taken earlier.
     */
    @Override
    public long now(boolean highPrecision) {
        long n = realtime.nanos();
        return highPrecision ? n : n - n % 1_000_000L;
    }

    /** CLOCK_MONOTONIC in nanoseconds since boot; only differences are meaningful. */
    @Override
    public long nanoTime() {
        return monotonic.nanos();
    }

    @Override
    public String toString() {
        return "TimekeepingOtelClock[REALTIME, MONOTONIC]";
    }
}
