package org.timekeeping4j.cli.path;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * {@code Clocks.ticks()}, the unordered counter read, converted with {@code Clocks.ticksToNanos}: ordered within a
 * thread, not across threads (see {@link #orderedAcrossThreads()}), and up to {@link #BOUND_NANOS} early against a
 * kernel read made just before it.
 */
final class TicksPath implements ClockPath {

    /** An unordered read may execute before the kernel read that precedes it in program order. */
    static final long BOUND_NANOS = 100;

    @Override
    public String name() {
        return "ticks";
    }

    @Override
    public String description() {
        return "Clocks.ticks (unordered counter read) converted by Clocks.ticksToNanos";
    }

    @Override
    public boolean serves(ClockId clock) {
        return ClockPaths.counterServed(clock);
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return () -> Clocks.ticksToNanos(Clocks.ticks(), clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return BOUND_NANOS;
    }

    @Override
    public boolean orderedAcrossThreads() {
        return false;
    }

    @Override
    public String callName(ClockId clock) {
        return "Clocks.ticks+ticksToNanos";
    }
}
