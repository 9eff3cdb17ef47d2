package org.timekeeping4j.benchmarks;

import java.time.Duration;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ClockSource;
import org.timekeeping4j.Clocks;

/**
 * Waits for the process-wide fast path. The tracker starts on the first {@code Clocks} read and needs a few
 * hundred ms to converge; until then every fast read is served by the kernel, so a benchmark that did not wait
 * would measure the fallback for part of its warm-up (or all of it on a slow start). Both methods fail the run
 * loudly rather than report the wrong path. The adapters' benchmarks (adapters/benchmarks) use this class too.
 */
final class FastPathReady {

    static final long TIMEOUT_SECONDS = 20;

    private FastPathReady() {}

    /** Starts the tracker and waits until MONOTONIC (and with it REALTIME) is served from the counter. */
    static void await() {
        if (!Clocks.awaitFastPath(Duration.ofSeconds(TIMEOUT_SECONDS))) {
            throw new IllegalStateException("the fast path did not engage within " + TIMEOUT_SECONDS
                    + " s, refusing to measure the kernel fallback: " + Clocks.source().get(ClockId.MONOTONIC));
        }
    }

    /** Fails if the fast path fell back to the kernel (call after each iteration: the numbers would be wrong). */
    static void check() {
        if (path() != ClockSource.Path.COUNTER) {
            throw new IllegalStateException("the fast path fell back to the kernel during the measurement: "
                    + Clocks.source().get(ClockId.MONOTONIC));
        }
    }

    private static ClockSource.Path path() {
        return Clocks.source().get(ClockId.MONOTONIC).path();
    }
}
