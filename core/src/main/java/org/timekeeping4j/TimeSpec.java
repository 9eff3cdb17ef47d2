package org.timekeeping4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import org.timekeeping4j.linux.LibC;

/**
 * A caller-owned, reusable (seconds, nanoseconds) holder that clock reads fill without allocating:
 * the kernel writes straight into this object's own native struct timespec.
 *
 * <p>Not thread-safe: one holder per thread. {@link #toInstant()} allocates (it is the caller's choice).
 */
public final class TimeSpec {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** A holder reading 0 s, 0 ns until a clock read fills it. */
    public TimeSpec() {
    }

    // Freed by the garbage collector with this holder.
    private final MemorySegment timespec = Arena.ofAuto().allocate(LibC.Timespec.LAYOUT);

    MemorySegment segment() {
        return timespec;
    }

    /** {@return whole seconds (tv_sec)} */
    public long seconds() {
        return LibC.Timespec.sec(timespec);
    }

    /** {@return nanoseconds within the second (tv_nsec), 0..999,999,999 for any value the kernel wrote} */
    public int nanosOfSecond() {
        return (int) LibC.Timespec.nsec(timespec);
    }

    /** {@return seconds * 10^9 + nanosOfSecond: exact until the year 2262 for epoch clocks} */
    public long toNanos() {
        return seconds() * NANOS_PER_SECOND + nanosOfSecond();
    }

    /** {@return the value as an Instant (allocates). Meaningful as a date only for epoch-based clocks} */
    public Instant toInstant() {
        return Instant.ofEpochSecond(seconds(), nanosOfSecond());
    }

    @Override
    public String toString() {
        return seconds() + "." + String.format("%09d", nanosOfSecond());
    }
}
