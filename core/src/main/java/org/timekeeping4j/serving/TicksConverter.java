package org.timekeeping4j.serving;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * The one conversion of tick values ({@code Clocks.ticks()}) to a clock, with its exactness: Clocks.ticksToNanos
 * and EventRecorder.export both convert through it, so a recorded event and a tick converted by hand take the same
 * path. Caller-owned and reusable: a conversion allocates nothing. Not thread-safe.
 *
 * <p>The backend serving now says how its ticks convert ({@link Backend#convert}): counter cycles with the kernel's
 * parameter set that served them, from the parameter history (exact where it shows which set that was, else
 * flagged with a bound), without a history extrapolated along the current line and flagged; a clock no counter
 * read serves goes through MONOTONIC_RAW and its current offset; or MONOTONIC_RAW nanoseconds, another clock
 * reached through its current offset.
 */
public final class TicksConverter {

    private final VdsoNanos kernelData = new VdsoNanos();
    private final ClockOffset offsetNow = new ClockOffset();
    private long nanos;
    private boolean exact;
    private long bound;

    /** A converter, to be reused: it allocates nothing per conversion. */
    public TicksConverter() {}

    /** {@return the clock's nanoseconds at the ticks of the last {@link #convert}} */
    public long nanos() {
        return nanos;
    }

    /**
     * {@return whether the last {@link #convert} gave the value a read at those ticks returned: the parameter set
     * that served them is known (the parameter history; MONOTONIC_RAW where ticks are its ns)}
     */
    public boolean exact() {
        return exact;
    }

    /**
     * {@return how far the last {@link #convert}'s value may be from what a read at those ticks returned, ns: 0
     * where exact; where the parameter history kept the candidates, their difference (or the rate difference it
     * saw times the unseen span, or the age); {@link Long#MAX_VALUE} where nothing bounds it}
     */
    public long bound() {
        return bound;
    }

    /**
     * Converts {@code ticks} to {@code clock}; read the result with {@link #nanos()} and {@link #exact()}.
     *
     * @param ticks a tick value of this process
     * @param clock the clock to convert to
     * @throws IllegalStateException where ticks are counter cycles and the kernel's data no longer serves the counter
     */
    public void convert(long ticks, ClockId clock) {
        FastPath.noteNamespace(); // a restore into another namespace fences the ticks before it (Disruptions)
        FastPath.current().convert(ticks, clock, this);
        if (exact && Disruptions.count() > 0 && (Disruptions.before(ticks) || ticks > FastPath.ticks())) {
            // Taken before a clock disruption the library saw (VMClock, a restore): the counter may have jumped.
            // A tick above the counter now cannot be this counter's past (another host's, read before a restore).
            exact = false;
            bound = Long.MAX_VALUE;
        }
    }

    /** Ticks are counter cycles: the kernel's current parameters. */
    void fromCycles(long ticks, ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        if (c != null && KernelVdso.convertPast(ticks, c, kernelData)) {
            nanos = kernelData.nanos();
            exact = kernelData.exact();
            bound = kernelData.bound();
            return;
        }
        if (c != null && KernelVdso.convert(ticks, c, kernelData)) {
            // No history for the data serving now (timekeeping4j.history=0, or none yet): the current line. Past
            // its cycle_last too, another line may have served the tick (a daemon's frequency change keeps
            // cycle_last), and nothing bounds the difference.
            nanos = kernelData.nanos();
            exact = false;
            bound = Long.MAX_VALUE;
            return;
        }
        // Another clock (COARSE, CPU time...), or the data cannot serve now: MONOTONIC_RAW at the tick, then
        // the other clock's current offset from it.
        if (KernelVdso.convert(ticks, CounterClock.MONOTONIC_RAW, kernelData)) {
            nanos = fromRawByOffset(kernelData.nanos(), clock);
            exact = false;
            bound = Long.MAX_VALUE;
            return;
        }
        throw new IllegalStateException("the kernel's vDSO data cannot convert ticks now (clock_mode is no "
                + "longer the counter): " + KernelVdso.vclockNow());
    }

    /** Ticks are MONOTONIC_RAW ns: converted by the clocks' current offset. */
    void fromRawNanos(long ticks, ClockId clock) {
        nanos = fromRawByOffset(ticks, clock);
        exact = clock == ClockId.MONOTONIC_RAW;
        bound = exact ? 0 : Long.MAX_VALUE;
    }

    /** MONOTONIC_RAW nanoseconds to {@code clock}, by the clocks' current offset ({@link ClockOffset}). */
    private long fromRawByOffset(long rawNanos, ClockId clock) {
        return clock == ClockId.MONOTONIC_RAW ? rawNanos
                : rawNanos + offsetNow.measure(ClockId.MONOTONIC_RAW, clock).offset();
    }
}
