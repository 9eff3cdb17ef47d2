package org.timekeeping4j.adjust;

/**
 * The narrow interface the timekeeper pulls its steering from, as kernel/time/timekeeping.c pulls from
 * ntp.c (ntp_tick_length, second_overflow): the timekeeper calls these methods from its single writer,
 * inside an update, and never the other way round.
 *
 * <p>Implementations are written by user threads (adjtimex-like calls) and read by the timekeeper's
 * writer; they synchronise internally. None of these methods is on a read path.
 */
public interface ClockAdjustment {

    /** No leap second pending. */
    int LEAP_NONE = 0;
    /** Insert a leap second at the next UTC midnight (23:59:59 is repeated). */
    int LEAP_INSERT = 1;
    /** Delete a leap second at the next UTC midnight (23:59:59 is skipped). */
    int LEAP_DELETE = -1;

    /**
     * Called at every update: {@code elapsedNanos} of the unadjusted (raw) line have passed since the
     * previous call; account for the phase slewed in that interval and return the total frequency offset,
     * in ppb, for the adjusted line from now on (frequency plus slew).
     *
     * @param elapsedNanos raw-line nanoseconds since the previous call
     * @return the frequency offset of the adjusted line from now on, ppb
     */
    long frequencyPpb(long elapsedNanos);

    /** {@return the pending leap second: {@link #LEAP_NONE}, {@link #LEAP_INSERT} or {@link #LEAP_DELETE}} */
    int pendingLeap();

    /**
     * Called once the timekeeper has folded the pending leap second into its offsets.
     *
     * @param direction the leap applied: {@link #LEAP_INSERT} or {@link #LEAP_DELETE}
     */
    void leapApplied(int direction);

    /** No adjustment at all: the adjusted line runs at the raw line's rate. */
    ClockAdjustment NONE = new ClockAdjustment() {
        @Override
        public long frequencyPpb(long elapsedNanos) {
            return 0;
        }

        @Override
        public int pendingLeap() {
            return LEAP_NONE;
        }

        @Override
        public void leapApplied(int direction) {
        }
    };
}
