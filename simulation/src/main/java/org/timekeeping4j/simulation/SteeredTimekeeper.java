package org.timekeeping4j.simulation;

import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.simulation.counter.SimulatedCounter;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The timekeeper that {@code tk4j verify skew} exercises: timekeeping4j's own {@link Timekeeper} over a
 * simulated 32-bit 24 MHz counter (like the Exynos MCT: it wraps every 179 s) that runs with real
 * time, steered by an {@link NtpAdjuster}. Every frequency change is applied with an update, as adjtimex
 * applies it through the kernel's timekeeper; between changes the clocks extrapolate.
 */
public final class SteeredTimekeeper implements SimulatedTimekeeper {
    // Start 2 s before the wrap, so that a run of a few seconds crosses it.
    private final SimulatedCounter counter = SimulatedCounter.builder().name("simulated 24 MHz 32-bit")
            .widthBits(32).frequencyHz(24_000_000L).startCycles((1L << 32) - 48_000_000L)
            .scaledRealTime(1.0).build();
    private final NtpAdjuster adjuster = new NtpAdjuster();
    private final Timekeeper timekeeper = Timekeeper.builder(counter).adjustment(adjuster)
            .realtimeNanos(1_800_000_000_000_000_000L).monotonicNanos(1_000_000_000L).build();

    /** A new timekeeper, at frequency adjustment 0. */
    public SteeredTimekeeper() {}

    @Override
    public String name() {
        return "Timekeeper, " + counter.name();
    }

    @Override
    public List<ClockId> clocks() {
        return List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME,
                ClockId.TAI, ClockId.REALTIME_COARSE, ClockId.MONOTONIC_COARSE);
    }

    @Override
    public long readNanos(ClockId clock) {
        return timekeeper.nanos(clock);
    }

    @Override
    public void adjustFrequencyPpb(long ppb) {
        adjuster.setFrequencyPpb(ppb);
        timekeeper.update(); // applied at once, continuous at the update's counter value
    }
}
