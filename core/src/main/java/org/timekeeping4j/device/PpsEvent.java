package org.timekeeping4j.device;

/**
 * One PPS_FETCH result: the latest assert and clear edges, each with its sequence number and its
 * CLOCK_REALTIME time stamp (seconds, nanoseconds). A sequence of 0 with a zero time means "no such edge
 * yet".
 *
 * @param assertSequence the assert edge's sequence number
 * @param assertSeconds  the assert edge's CLOCK_REALTIME seconds
 * @param assertNanos    the assert edge's nanoseconds within the second
 * @param clearSequence  the clear edge's sequence number
 * @param clearSeconds   the clear edge's CLOCK_REALTIME seconds
 * @param clearNanos     the clear edge's nanoseconds within the second
 * @param mode           the PPS_* mode bits the kernel reported with the edges
 */
public record PpsEvent(long assertSequence, long assertSeconds, int assertNanos,
                       long clearSequence, long clearSeconds, int clearNanos, int mode) {

    /** {@return the assert edge in nanoseconds since the epoch} */
    public long assertEpochNanos() {
        return assertSeconds * 1_000_000_000L + assertNanos;
    }

    /** {@return the clear edge in nanoseconds since the epoch} */
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
