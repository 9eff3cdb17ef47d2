package org.timekeeping4j.tracking;

import org.timekeeping4j.adjust.ClockAdjustment;

/**
 * The steering a {@link KernelTracker} hands its timekeepers: a frequency offset in ppb that the tracker
 * sets before each update, with no leap seconds of its own (the kernel applies leap seconds, and the
 * tracker follows the kernel's REALTIME offset instead).
 *
 * <p>Written and read by the tracker's single thread only (set, then Timekeeper.update() pulls it),
 * so it needs no synchronisation.
 */
final class TrackingAdjustment implements ClockAdjustment {

    private long ppb;

    void set(long ppb) {
        this.ppb = ppb;
    }

    long get() {
        return ppb;
    }

    @Override
    public long frequencyPpb(long elapsedNanos) {
        return ppb;
    }

    @Override
    public int pendingLeap() {
        return LEAP_NONE;
    }

    @Override
    public void leapApplied(int direction) {
        // never asked: pendingLeap() is always LEAP_NONE
    }
}
