package org.timekeeping4j.cli.path;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/**
 * {@code broken} (hidden): a deliberately wrong MONOTONIC that goes back {@link #STEP_BACK_NANOS} on every
 * {@link #PERIOD}-th read. The planted violation that shows {@code verify consistency} and {@code verify causality}
 * catch a clock going backwards. Never listed, never run by default.
 */
final class BrokenPath implements ClockPath {

    /** One read in this many goes backwards (a power of two). */
    static final int PERIOD = 1024;
    /** How far back it goes. */
    // One second, not 100 us: causality compares a reader's read with a stamp another thread published, and on a
    // loaded machine that stamp can be older than 100 us by the time it is read (the publisher descheduled), so a
    // smaller step could go unseen in a short run (seen: 0 violations in 0.2 s at load 6).
    static final long STEP_BACK_NANOS = 1_000_000_000L;

    // Counts reads to decide which one goes back. Plain and racy on purpose: shared by reader threads, lost
    // updates only change which read is the broken one, not that some are.
    private long reads;

    @Override
    public String name() {
        return "broken";
    }

    @Override
    public String description() {
        return "test fixture: kernel MONOTONIC going back " + STEP_BACK_NANOS + " ns on one read in " + PERIOD;
    }

    @Override
    public boolean serves(ClockId clock) {
        return clock == ClockId.MONOTONIC;
    }

    @Override
    public PathReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return () -> {
            long t = KernelClocks.nanos(ClockId.MONOTONIC);
            return (++reads & (PERIOD - 1)) == 0 ? t - STEP_BACK_NANOS : t;
        };
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return 0; // it claims to be the kernel's MONOTONIC; agreement exposes it too
    }

    @Override
    public boolean hidden() {
        return true;
    }
}
