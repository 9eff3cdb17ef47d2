package org.timekeeping4j.timekeeper;

import org.timekeeping4j.ClockId;

/** The result of {@link Timekeeper#convert(long, ClockId, ConvertedNanos)}; caller-owned, reusable, no allocation. */
public final class ConvertedNanos {
    long nanos;
    boolean withinHistory;
    long generation;
    int clockWasSetSeq;

    /** An empty result (every field 0 or false), for {@link Timekeeper#convert(long, ClockId, ConvertedNanos)}. */
    public ConvertedNanos() {
    }

    /** {@return the converted value in ns} */
    public long nanos() {
        return nanos;
    }

    /**
     * {@return false when the counter value predates the history: it was extrapolated (backwards) from
     * the oldest state, and may differ from what a read at that value returned}
     */
    public boolean withinHistory() {
        return withinHistory;
    }

    /** {@return the generation (see {@link Timekeeper#generation()}) of the state used} */
    public long generation() {
        return generation;
    }

    /** {@return the clock-was-set sequence (see {@link Timekeeper#clockWasSetSeq()}) of the state used} */
    public int clockWasSetSeq() {
        return clockWasSetSeq;
    }
}
