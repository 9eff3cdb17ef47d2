package org.timekeeping4j;

import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * Who serves the counter-backed clocks (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI), decided once per
 * process ({@link #PROCESS}). The cold paths (snapshots, cross timestamps, ticks conversion, the reports) have
 * one short method per mode and switch on it; the hot per-clock reads of {@link Clocks} test a static final
 * boolean derived from it, which the JIT folds.
 */
enum ServingMode {
    /**
     * The kernel's own vDSO data, read with the vDSO's arithmetic ({@link KernelVdso}): equal to clock_gettime,
     * no thread, no calibration.
     */
    EXACT,
    /**
     * clock_gettime for everything: exact mode refused (the reason is {@link KernelVdso#reason()}), the kernel's
     * clocks chosen (timekeeping4j.counter=kernel), or a configuration error (every read then reports it).
     */
    KERNEL;

    /** This process's mode. */
    static final ServingMode PROCESS = decide();

    private static ServingMode decide() {
        Configuration c = Configuration.PROCESS;
        if (c.error() != null || c.kernelChosen()) {
            return KERNEL;
        }
        return KernelVdso.ENABLED ? EXACT : KERNEL;
    }
}
