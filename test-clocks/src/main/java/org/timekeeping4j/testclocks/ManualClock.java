package org.timekeeping4j.testclocks;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.timekeeping4j.ClockReader;

/**
 * A clock that moves only when the test moves it: {@link #advance} for the time that passes, {@link #set} for a
 * step (a REALTIME clock set back, say). Give it to the code under test wherever that code takes a
 * {@link ClockReader}, or to an adapter's {@code of} factory (Micrometer, OpenTelemetry, Guava, Caffeine, Agrona).
 *
 * <pre>{@code
 * ManualClock clock = ManualClock.startingAt(0);
 * RateLimiter limiter = new RateLimiter(clock, 10);           // the code under test reads clock.nanos()
 * assertThat(limiter.tryAcquire()).isTrue();
 * clock.advance(Duration.ofMillis(100));                       // no sleep: time passes when the test says
 * }</pre>
 *
 * <p>Safe for any number of threads: a read after a move made in another thread, once that move is visible (a
 * join, a latch, a volatile), returns the moved value; {@link #nanos()} allocates nothing.
 */
public final class ManualClock implements ClockReader {

    /** Volatile reads, CAS moves: a read sees every move that happened-before it (pairs with advance and set). */
    private final AtomicLong nanos;

    private ManualClock(long nanos) {
        this.nanos = new AtomicLong(nanos);
    }

    /**
     * A clock reading {@code nanos} until it is moved.
     *
     * @param nanos the first value, in the clock's nanoseconds (e.g. 0 for a MONOTONIC stand-in)
     * @return the clock
     */
    public static ManualClock startingAt(long nanos) {
        return new ManualClock(nanos);
    }

    /**
     * A REALTIME stand-in reading {@code instant} until it is moved.
     *
     * @param instant the first value, from 1970 to 2262 (what nanoseconds since the epoch hold)
     * @return the clock
     * @throws ArithmeticException outside that range
     */
    public static ManualClock startingAt(Instant instant) {
        return new ManualClock(Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L),
                instant.getNano()));
    }

    /** {@return the clock's value now, in nanoseconds} */
    @Override
    public long nanos() {
        return nanos.get();
    }

    /**
     * Lets {@code elapsed} pass.
     *
     * @param elapsed how much, zero or more
     * @return this clock
     * @throws IllegalArgumentException for a negative duration (use {@link #set} for a step back)
     * @throws ArithmeticException      where the value would overflow
     */
    public ManualClock advance(Duration elapsed) {
        if (elapsed.isNegative()) {
            throw new IllegalArgumentException("advance(" + elapsed + "): time passes forward; a step back is set(nanos)");
        }
        return advanceNanos(elapsed.toNanos());
    }

    /**
     * Lets {@code nanos} nanoseconds pass.
     *
     * @param nanos how many, zero or more
     * @return this clock
     * @throws IllegalArgumentException for a negative count (use {@link #set} for a step back)
     * @throws ArithmeticException      where the value would overflow
     */
    public ManualClock advanceNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("advanceNanos(" + nanos + "): time passes forward; a step back is set(nanos)");
        }
        long now;
        do { // a compare-and-set loop: two threads advancing at once both count; an overflow changes nothing
            now = this.nanos.get();
        } while (!this.nanos.compareAndSet(now, Math.addExact(now, nanos)));
        return this;
    }

    /**
     * Steps the clock to {@code nanos}, forward or back (what setting REALTIME does; MONOTONIC never steps back).
     *
     * @param nanos the new value
     * @return this clock
     */
    public ManualClock set(long nanos) {
        this.nanos.set(nanos);
        return this;
    }

    @Override
    public String toString() {
        return "ManualClock[" + nanos.get() + " ns]";
    }
}
