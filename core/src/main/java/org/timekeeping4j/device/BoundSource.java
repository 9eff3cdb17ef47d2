package org.timekeeping4j.device;

/**
 * A source of {@link ServedBounds}: samples its bound now, off the read path (adjtimex, chronyd, ClockBound, a
 * VMClock page).
 */
interface BoundSource {
    /** {@return the source's anchor now} */
    ServedBounds.Anchor sample();

    /** {@return how often the refresher samples it, ms} */
    int periodMillis();

    /** {@return what it is, as {@link BoundedClock#description()} says} */
    String description();

    /** {@return how long until the next sample, ms: the period unless the source knows when it next updates} */
    default int nextSampleMillis() {
        return periodMillis();
    }

    /** Told by the refresher, before its next sample, that REALTIME was set since the last one. */
    default void realtimeSet() {
    }

    /**
     * Whether the source's last sample shows that it measured a set of REALTIME by {@code setNanos} (its
     * offset at an update since the set is about that large): it then knows the clock is off by it, or stepped
     * it back. A source that cannot say answers false.
     *
     * @param setNanos the sets of REALTIME since the last sample the source served, summed
     * @return whether the source measured them
     */
    default boolean measured(long setNanos) {
        return false;
    }
}
