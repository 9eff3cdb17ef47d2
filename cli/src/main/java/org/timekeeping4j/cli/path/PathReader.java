package org.timekeeping4j.cli.path;

/**
 * Reads one clock through one path: the clock's value in nanoseconds, in that clock's own units (since the epoch
 * for REALTIME and TAI, since the clock's origin for the others).
 *
 * <p>One reader per (path, clock), obtained once from {@link ClockPath#reader}; the hot loops of verify and bench
 * call {@link #readNanos()} with no lookup and no allocation. Implementations must not allocate either (the
 * JDK's {@code Instant.now} reader is the one documented exception: escape analysis usually removes it).
 *
 * <p>Thread-safety: readers may be shared between threads unless their path says otherwise.
 *
 * <p>Not core's {@code org.timekeeping4j.ClockReader} (the API's handle on one clock): this is the CLI's seam
 * through which verify and bench read any path alike.
 */
@FunctionalInterface
public interface PathReader {

    /** The clock's current value in nanoseconds. */
    long readNanos();
}
