package org.timekeeping4j.simulation;

import java.util.List;
import org.timekeeping4j.ClockId;

/**
 * A user-space timekeeper driven by a simulated counter whose frequency a test can change: what
 * {@code tk4j verify skew} (the kernel's skew_consistency selftest, in user space) needs. {@link SteeredTimekeeper}
 * is the one this project checks; {@code tk4j verify skew} flips its frequency by +/-500 ppm while reader threads
 * check that none of its clocks ever goes backwards (the CLI's tests substitute stand-ins that do and do not).
 *
 * <h2>Assumptions and Guarantees</h2>
 * <ul>
 *   <li>{@link #adjustFrequencyPpb} is called by one writer thread at a time (as adjtimex updates the kernel's
 *       timekeeper under its lock); {@link #readNanos} by any number of reader threads concurrently.</li>
 *   <li>{@link #readNanos} must not allocate and must never return less than a value an earlier read (in any
 *       thread, ordered by happens-before) returned for the same clock: a frequency change keeps time continuous
 *       (the kernel's xtime_nsec -= offset * mult_adj).</li>
 * </ul>
 */
public interface SimulatedTimekeeper extends AutoCloseable {

    /** A short name for reports. */
    String name();

    /** The clocks this timekeeper serves. */
    List<ClockId> clocks();

    /** The clock's current value in nanoseconds. */
    long readNanos(ClockId clock);

    /** Sets the frequency adjustment of the NTP-steered clocks, in parts per billion (500 ppm = 500_000 ppb). */
    void adjustFrequencyPpb(long ppb);

    @Override
    default void close() {}
}
