package org.timekeeping4j.simulation.counter;

import java.util.List;
import org.timekeeping4j.config.CounterMode;
import org.timekeeping4j.clocksource.Clocksource;

/**
 * The counter timekeeping4j reads, and why.
 *
 * @param mode        the mode asked for ({@code timekeeping4j.counter})
 * @param clocksource the counter for clock reads: ordered unless the mode asked for unordered
 * @param ticks       the cheapest counter for raw timestamps (unordered where available), same frequency
 * @param frequency   the counter frequency with its uncertainty and source
 * @param rejected    every candidate that was not used, with its reason
 */
public record CounterSelection(CounterMode mode, Clocksource clocksource, Clocksource ticks,
                               Frequency frequency, List<Rejection> rejected) {

    /** {@return true where a hardware counter is read; false on the kernel fallback} */
    public boolean isHardware() {
        return clocksource instanceof HardwareCounter;
    }

    /** {@return the read flavour's instructions, or "clock_gettime(CLOCK_MONOTONIC_RAW)" on the fallback} */
    public String readFlavour() {
        return clocksource instanceof HardwareCounter h ? h.instructions()
                : "clock_gettime(CLOCK_MONOTONIC_RAW)";
    }
}
