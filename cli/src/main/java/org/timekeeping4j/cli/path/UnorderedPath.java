package org.timekeeping4j.cli.path;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * {@code Clocks.nanosUnordered}: exact mode's kernel arithmetic around an unordered counter read. Ordered within
 * a thread, not across threads ({@link #orderedAcrossThreads()}: its causality is measured, not promised), and
 * up to {@link TicksPath#BOUND_NANOS} early against a kernel read made just before it.
 */
final class UnorderedPath implements ClockPath {

    @Override
    public String name() {
        return "fast-unordered";
    }

    @Override
    public String description() {
        return "Clocks.nanosUnordered: exact mode over an unordered counter read (rdtsc)";
    }

    @Override
    public boolean serves(ClockId clock) {
        return ClockPaths.counterServed(clock);
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return () -> Clocks.nanosUnordered(clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return TicksPath.BOUND_NANOS;
    }

    @Override
    public boolean orderedAcrossThreads() {
        return false;
    }

    @Override
    public String callName(ClockId clock) {
        return "Clocks.nanosUnordered";
    }
}
