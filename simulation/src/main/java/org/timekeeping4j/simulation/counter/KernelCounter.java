package org.timekeeping4j.simulation.counter;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The fallback clocksource: CLOCK_MONOTONIC_RAW through clock_gettime, seen as a 64-bit counter at 1 GHz.
 * What the vDSO does when the clocksource's mode is VDSO_CLOCKMODE_NONE: ask the kernel. Always correct,
 * never faster than the kernel.
 */
final class KernelCounter extends Clocksource {

    /** The kernel's rating does not apply; rank it below any usable hardware counter. */
    private static final int RATING = 100;

    /** The kernel's CLOCK_MONOTONIC_RAW as a 64-bit, 1 GHz counter. */
    KernelCounter() {
        super("kernel (CLOCK_MONOTONIC_RAW)", 64, 1e9, RATING, true, true);
    }

    @Override
    public long read() {
        return ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC_RAW.id());
    }
}
