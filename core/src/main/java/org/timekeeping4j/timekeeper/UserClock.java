package org.timekeeping4j.timekeeper;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.clocksource.Clocksource;

/**
 * An independent clock on the timekeeper's counter, like the kernel's CLOCK_AUX (Linux 6.17+): its own
 * frequency, slew and offset, created and steered by user code, untouched by the system clocks' steering,
 * leap seconds and suspend. Reads have the same protocol and guarantees as {@link Timekeeper}'s (it is a
 * timekeeper of its own whose REALTIME line is the clock); it is updated with the timekeeper that created
 * it, and steering takes effect at the next update (or {@link #update()}).
 */
public final class UserClock {
    private final ClockId id;
    private final NtpAdjuster adjuster = new NtpAdjuster();
    private final Timekeeper timekeeper;

    UserClock(ClockId id, Clocksource clocksource, long initialNanos, int historySize) {
        this.id = id;
        this.timekeeper = Timekeeper.builder(clocksource).adjustment(adjuster).realtimeNanos(initialNanos)
                .historySize(historySize).build();
    }

    /** {@return the AUX clock id this clock stands for} */
    public ClockId id() {
        return id;
    }

    /** {@return the clock's value in ns; lock-free and allocation-free} */
    public long nanos() {
        return timekeeper.realtimeNanos();
    }

    /**
     * A counter value read earlier, converted as a read at that moment returned (see
     * {@link Timekeeper#convert}).
     *
     * @param counter a counter value read earlier
     * @return the clock's value at that read, ns
     */
    public long convert(long counter) {
        return timekeeper.convert(counter, ClockId.REALTIME);
    }

    /**
     * Sets the frequency offset against the counter's nominal rate.
     *
     * @param ppb parts per billion, within +-500 ppm
     * @throws IllegalArgumentException beyond +-500 ppm
     */
    public void setFrequencyPpb(long ppb) {
        adjuster.setFrequencyPpb(ppb);
    }

    /**
     * Slews the clock by {@code offsetNanos} at 500 ppm (adjtime).
     *
     * @param offsetNanos the offset, ns, within +-5 s
     * @return what was left of the previous slew, ns
     * @throws IllegalArgumentException beyond +-5 s
     */
    public long slew(long offsetNanos) {
        return adjuster.slew(offsetNanos);
    }

    /**
     * Steps the clock by {@code deltaNanos}.
     *
     * @param deltaNanos the step, ns (negative: back)
     */
    public void step(long deltaNanos) {
        timekeeper.step(deltaNanos);
    }

    /**
     * Sets the clock to {@code nanos} now.
     *
     * @param nanos the clock's new value, ns
     */
    public void setNanos(long nanos) {
        timekeeper.setRealtime(nanos);
    }

    /** Accumulates and applies pending steering (the creating timekeeper's update does this too). */
    public void update() {
        timekeeper.update();
    }

    /** {@return the adjusted line's mult as last published (for tests and diagnostics)} */
    public long mult() {
        return timekeeper.monoMult();
    }
}
