package org.timekeeping4j.timekeeper;

import org.timekeeping4j.adjust.ClockAdjustment;
import org.timekeeping4j.clocksource.Clocksource;

/** Configuration of a {@link Timekeeper}: {@link Timekeeper#builder} starts one, {@link #build()} ends it. */
public final class TimekeeperBuilder {
    final Clocksource clocksource;
    ClockAdjustment adjustment = ClockAdjustment.NONE;
    long realtimeNanos;
    long monotonicNanos;
    int taiOffsetSeconds;
    long boottimeOffsetNanos;
    boolean anchored;
    long anchorCounter;
    int historySize = 64;
    long conversionSeconds = 4;

    TimekeeperBuilder(Clocksource clocksource) {
        this.clocksource = clocksource;
    }

    /**
     * Where the adjusted line's frequency and leap seconds come from (default: none).
     *
     * @param adjustment pulled at every update, outside the writer's odd window
     *                   ({@link ClockAdjustment#NONE}: the adjusted line runs at the raw rate)
     * @return this builder
     */
    public TimekeeperBuilder adjustment(ClockAdjustment adjustment) {
        this.adjustment = adjustment;
        return this;
    }

    /**
     * REALTIME at construction, ns since the epoch (default 0).
     *
     * @param realtimeNanos REALTIME at the {@link #anchorCounter} value, ns since the epoch
     * @return this builder
     */
    public TimekeeperBuilder realtimeNanos(long realtimeNanos) {
        this.realtimeNanos = realtimeNanos;
        return this;
    }

    /**
     * MONOTONIC (and MONOTONIC_RAW, BOOTTIME) at construction (default 0).
     *
     * @param monotonicNanos MONOTONIC and MONOTONIC_RAW at the {@link #anchorCounter} value, ns; BOOTTIME is this
     *                       plus {@link #boottimeOffsetNanos}
     * @return this builder
     */
    public TimekeeperBuilder monotonicNanos(long monotonicNanos) {
        this.monotonicNanos = monotonicNanos;
        return this;
    }

    /**
     * TAI - UTC in seconds (default 0, as the kernel's until a daemon sets it).
     *
     * @param seconds TAI - UTC, whole seconds (37 since 2017)
     * @return this builder
     */
    public TimekeeperBuilder taiOffsetSeconds(int seconds) {
        this.taiOffsetSeconds = seconds;
        return this;
    }

    /**
     * The counter value at which the initial clock values hold (default: the counter when
     * {@link #build()} reads it). Anchoring on a counter value read together with the kernel's clocks
     * makes the new timekeeper agree with them exactly, however long the construction takes.
     *
     * @param counterValue a value of the clocksource (taken modulo its width)
     * @return this builder
     */
    public TimekeeperBuilder anchorCounter(long counterValue) {
        this.anchored = true;
        this.anchorCounter = counterValue;
        return this;
    }

    /**
     * BOOTTIME - MONOTONIC at construction: time already spent in suspend (default 0); any sign, because in a
     * time namespace BOOTTIME and MONOTONIC carry offsets of their own and BOOTTIME may read below MONOTONIC.
     *
     * @param nanos the offset, ns
     * @return this builder
     */
    public TimekeeperBuilder boottimeOffsetNanos(long nanos) {
        this.boottimeOffsetNanos = nanos;
        return this;
    }

    /**
     * States kept for {@link Timekeeper#convert}; rounded up to a power of two, at least 2.
     *
     * @param historySize the number of states, 2 to 2^20 (default 64)
     * @return this builder
     * @throws IllegalArgumentException outside 2 to 2^20
     */
    public TimekeeperBuilder historySize(int historySize) {
        if (historySize < 2 || historySize > (1 << 20)) {
            throw new IllegalArgumentException("history size must be 2..2^20: " + historySize);
        }
        this.historySize = historySize;
        return this;
    }

    /**
     * The longest delta (s) the 64-bit multiply must handle; picks the shift (default 4 s).
     *
     * @param seconds at least 1; a larger value gives a smaller shift, so a coarser frequency step
     * @return this builder
     * @throws IllegalArgumentException if {@code seconds} is below 1
     */
    public TimekeeperBuilder conversionSeconds(long seconds) {
        if (seconds < 1) {
            throw new IllegalArgumentException("conversion seconds must be >= 1: " + seconds);
        }
        this.conversionSeconds = seconds;
        return this;
    }

    /**
     * Builds the timekeeper: reads the counter (unless anchored), allocates its history and publishes the first state (generation 0).
     *
     * @return a new timekeeper, its clocks at the configured values
     * @throws IllegalArgumentException if the counter is too fast for a shift of at least 1 at the
     *                                  conversion seconds
     */
    public Timekeeper build() {
        return new Timekeeper(this);
    }
}
