package org.timekeeping4j.cli.path;

import java.util.function.Function;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * A path over an unordered counter read: ordered within a thread, not across threads (see
 * {@link #orderedAcrossThreads()}: its causality is measured, not promised), and up to {@link #BOUND_NANOS} early
 * against a kernel read made just before it. Two are registered: {@link #ticks()} ({@code Clocks.ticks()} converted
 * by {@code Clocks.ticksToNanos}) and {@link #unordered()} ({@code Clocks.nanosUnordered}).
 *
 * @param name        what {@code --path} takes
 * @param description one line
 * @param readers     the reader per clock
 * @param call        the call's name
 */
record TicksPath(String name, String description, Function<ClockId, ClockReader> readers, String call)
        implements ClockPath {

    /** An unordered read may execute before the kernel read that precedes it in program order. */
    static final long BOUND_NANOS = 100;

    static TicksPath ticks() {
        return new TicksPath("ticks", "Clocks.ticks (unordered counter read) converted by Clocks.ticksToNanos",
                c -> () -> Clocks.ticksToNanos(Clocks.ticks(), c), "Clocks.ticks+ticksToNanos");
    }

    static TicksPath unordered() {
        return new TicksPath("fast-unordered", "Clocks.nanosUnordered: exact mode over an unordered counter read",
                c -> () -> Clocks.nanosUnordered(c), "Clocks.nanosUnordered");
    }

    /**
     * The ticks path needs counter cycles: on the kernel path ticks are MONOTONIC_RAW ns, converted to other
     * clocks through an offset measured at each conversion, which keeps neither the 100 ns bound nor the order of
     * one thread's reads.
     */
    @Override
    public java.util.Optional<String> unavailableReason() {
        return name.equals("ticks") && !Clocks.ticksAreCounterCycles()
                ? java.util.Optional.of("ticks: no trusted counter here, so ticks are MONOTONIC_RAW ns (see "
                        + "Clocks.ticksToNanos)")
                : java.util.Optional.empty();
    }

    @Override
    public boolean serves(ClockId clock) {
        return ClockPaths.counterServed(clock);
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return readers.apply(clock);
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
        return call;
    }
}
