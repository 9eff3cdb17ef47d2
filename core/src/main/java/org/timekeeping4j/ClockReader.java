package org.timekeeping4j;

/**
 * One clock, read without dispatch: what {@link Clocks#reader(ClockId)} returns for hot loops.
 *
 * <p>Implementations are stateless views, safe for any number of threads, and allocate nothing.
 */
@FunctionalInterface
public interface ClockReader {

    /** {@return the clock's current value in nanoseconds (since the epoch for REALTIME and TAI)} */
    long nanos();
}
