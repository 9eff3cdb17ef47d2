package org.timekeeping4j.device;

/**
 * One PPS_FETCH result: the latest assert and clear edges, each with its sequence number and its
 * CLOCK_REALTIME time stamp (seconds, nanoseconds). A sequence of 0 with a zero time means "no such edge
 * yet".
 */
public record PpsEvent(long assertSequence, long assertSeconds, int assertNanos,
                       long clearSequence, long clearSeconds, int clearNanos, int mode) {

    /** The assert edge in nanoseconds since the epoch. */
    public long assertEpochNanos() {
        return assertSeconds * 1_000_000_000L + assertNanos;
    }

    /** The clear edge in nanoseconds since the epoch. */
    public long clearEpochNanos() {
        return clearSeconds * 1_000_000_000L + clearNanos;
    }

    /** Like ppstest: {@code assert 1700000000.000000123, sequence: 5 - clear  0.000000000, sequence: 0}. */
    @Override
    public String toString() {
        return String.format("assert %d.%09d, sequence: %d - clear  %d.%09d, sequence: %d",
                assertSeconds, assertNanos, assertSequence, clearSeconds, clearNanos, clearSequence);
    }
}
