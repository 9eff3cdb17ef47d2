package org.timekeeping4j.timekeeper;

/**
 * One published parameter set: both read bases and the offsets, as one update of the kernel's struct
 * timekeeper left them. The timekeeper preallocates a ring of these; the newest is what readers use, the
 * older ones are the history that {@link Timekeeper#convert} consults. Written only by the writer, only
 * while unpublished (the slot after the newest, which no reader uses until the sequence says so).
 */
final class TimekeeperState {
    /** The NTP-adjusted line: MONOTONIC, and REALTIME, BOOTTIME, TAI through the offsets. */
    final TkReadBase mono;
    /** The raw line: MONOTONIC_RAW, the counter at the clocksource's nominal rate. */
    final TkReadBase raw;
    /** Deltas up to this take the 64-bit multiply; larger ones the 128-bit one. Unsigned. */
    long maxCycles;
    /** REALTIME - MONOTONIC (before a pending leap second), ns: the kernel's offs_real. */
    long offsReal;
    /** BOOTTIME - MONOTONIC: time spent in suspend (offs_boot). */
    long offsBoot;
    /** TAI - MONOTONIC (offs_tai): offsReal + TAI-UTC seconds; a leap second leaves it alone. */
    long offsTai;
    /** MONOTONIC value from which REALTIME includes {@link #leapStepNs}; Long.MAX_VALUE when no leap is armed. */
    long leapMono;
    /** -1 s for an inserted leap second (REALTIME repeats a second), +1 s for a deleted one. */
    long leapStepNs;
    /** Bumped whenever REALTIME/TAI are set or stepped (the kernel's clock_was_set_seq). */
    int clockWasSetSeq;
    /** The update count that published this state. */
    long generation;

    TimekeeperState(long mask, int shift) {
        mono = new TkReadBase(mask, shift);
        raw = new TkReadBase(mask, shift);
    }

    /**
     * {@return a ring of {@code historySize} states rounded up to a power of two, so that generation g's slot is
     * {@code g & (length - 1)}}
     */
    static TimekeeperState[] ring(int historySize, long mask, int shift) {
        int size = Integer.highestOneBit(historySize);
        if (size < historySize) {
            size <<= 1;
        }
        TimekeeperState[] ring = new TimekeeperState[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new TimekeeperState(mask, shift);
        }
        return ring;
    }

    void copyFrom(TimekeeperState o) {
        mono.copyFrom(o.mono);
        raw.copyFrom(o.raw);
        maxCycles = o.maxCycles;
        offsReal = o.offsReal;
        offsBoot = o.offsBoot;
        offsTai = o.offsTai;
        leapMono = o.leapMono;
        leapStepNs = o.leapStepNs;
        clockWasSetSeq = o.clockWasSetSeq;
        generation = o.generation;
    }
}
