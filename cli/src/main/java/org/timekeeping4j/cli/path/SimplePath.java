package org.timekeeping4j.cli.path;

import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.timekeeping4j.ClockId;

/**
 * A path made of its parts, so that registering a new one in {@link ClockPaths} is one line, e.g.
 * <pre>{@code
 * new SimplePath("fast", "Clocks.nanos: user-space counter x mult >> shift", Clocks::isSupported,
 *         c -> () -> Clocks.nanos(c), c -> 1_000L, c -> "Clocks.nanos")
 * }</pre>
 *
 * @param name        what {@code --path} takes
 * @param description one line saying what it calls
 * @param serves      which clocks it reads now
 * @param readers     the zero-allocation reader per clock (called once per clock, outside measured loops)
 * @param bound       the agreement bound per clock, ns (see {@link ClockPath#agreementBoundNanos})
 * @param calls       the call's name per clock, for reports
 */
public record SimplePath(String name, String description, Predicate<ClockId> serves,
                         Function<ClockId, ClockReader> readers, ToLongFunction<ClockId> bound,
                         Function<ClockId, String> calls) implements ClockPath {

    @Override
    public boolean serves(ClockId clock) {
        return serves.test(clock);
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return readers.apply(clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return bound.applyAsLong(clock);
    }

    @Override
    public String callName(ClockId clock) {
        return calls.apply(clock);
    }
}
