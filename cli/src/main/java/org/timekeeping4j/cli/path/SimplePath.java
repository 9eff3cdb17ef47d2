package org.timekeeping4j.cli.path;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/**
 * A path made of its parts, so that registering a new one in {@link ClockPaths} is one line, e.g.
 * <pre>{@code
 * new SimplePath("fast", "Clocks.nanos: user-space counter x mult >> shift", ClockPaths::readable,
 *         c -> () -> Clocks.nanos(c), c -> 1_000L, c -> "Clocks.nanos")
 * }</pre>
 * and, where the path differs from the defaults of {@link ClockPath}, {@link #withKernelResolution()},
 * {@link #unorderedAcrossThreads()} or {@link #unavailableWhen}.
 *
 * @param name        what {@code --path} takes
 * @param description one line saying what it calls
 * @param serves      which clocks it reads now
 * @param readers     the zero-allocation reader per clock (called once per clock, outside measured loops)
 * @param bound       the agreement bound per clock, ns (see {@link ClockPath#agreementBoundNanos})
 * @param calls       the call's name per clock, for reports
 * @param resolution  the resolution it reports per clock (see {@link ClockPath#resolutionNanos})
 * @param ordered     see {@link ClockPath#orderedAcrossThreads}
 * @param unavailable why it cannot run here now, or empty (see {@link ClockPath#unavailableReason})
 */
public record SimplePath(String name, String description, Predicate<ClockId> serves,
                         Function<ClockId, PathReader> readers, ToLongFunction<ClockId> bound,
                         Function<ClockId, String> calls, Function<ClockId, OptionalLong> resolution,
                         boolean ordered, Supplier<Optional<String>> unavailable) implements ClockPath {

    /** A path ordered across threads, available wherever it serves a clock, with no resolution of its own. */
    public SimplePath(String name, String description, Predicate<ClockId> serves,
                      Function<ClockId, PathReader> readers, ToLongFunction<ClockId> bound,
                      Function<ClockId, String> calls) {
        this(name, description, serves, readers, bound, calls, c -> OptionalLong.empty(), true, Optional::empty);
    }

    /** This path reporting the kernel's clock_getres, for paths that read the kernel's own clock. */
    public SimplePath withKernelResolution() {
        return new SimplePath(name, description, serves, readers, bound, calls,
                c -> OptionalLong.of(KernelClocks.resolutionNanos(c)), ordered, unavailable);
    }

    /** This path over an unordered read: its causality is measured, not promised. */
    public SimplePath unorderedAcrossThreads() {
        return new SimplePath(name, description, serves, readers, bound, calls, resolution, false, unavailable);
    }

    /** This path, unavailable whenever {@code why} gives a reason. */
    public SimplePath unavailableWhen(Supplier<Optional<String>> why) {
        return new SimplePath(name, description, serves, readers, bound, calls, resolution, ordered, why);
    }

    @Override
    public Optional<String> unavailableReason() {
        return unavailable.get();
    }

    @Override
    public boolean serves(ClockId clock) {
        return serves.test(clock);
    }

    @Override
    public PathReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return readers.apply(clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return bound.applyAsLong(clock);
    }

    @Override
    public OptionalLong resolutionNanos(ClockId clock) {
        return resolution.apply(clock);
    }

    @Override
    public boolean orderedAcrossThreads() {
        return ordered;
    }

    @Override
    public String callName(ClockId clock) {
        return calls.apply(clock);
    }
}
