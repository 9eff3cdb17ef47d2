package org.timekeeping4j.benchmarks;

import java.time.Duration;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.Clocks;

/**
 * Checks that the process-wide fast path (exact mode) serves: where it refused, every fast read is served by
 * the kernel, and a benchmark would measure the fallback. Both methods fail the run loudly rather than report
 * the wrong path. The adapters' benchmarks (adapters/benchmarks) use this class too.
 */
final class FastPathReady {

    static final long TIMEOUT_SECONDS = 20;

    private FastPathReady() {}

    /** Fails unless MONOTONIC (and with it REALTIME) is served from the counter. */
    static void await() {
        if (!Clocks.awaitExactMode(Duration.ofSeconds(TIMEOUT_SECONDS))) {
            throw new IllegalStateException("the fast path did not engage within " + TIMEOUT_SECONDS
                    + " s, refusing to measure the kernel fallback: " + Clocks.diagnostics().clocks().get(ClockId.MONOTONIC));
        }
    }

    /** Fails if the fast path fell back to the kernel (call after each iteration: the numbers would be wrong). */
    static void check() {
        if (!fromCounter()) {
            throw new IllegalStateException("the fast path fell back to the kernel during the measurement: "
                    + Clocks.diagnostics().clocks().get(ClockId.MONOTONIC));
        }
    }

    private static boolean fromCounter() {
        return Clocks.diagnostics().clocks().get(ClockId.MONOTONIC).fromCounter();
    }
}
