/**
 * timekeeping4j: Linux timekeeping for the JVM through the Foreign Function and Memory API.
 *
 * <p><b>Where to start.</b> {@code Clocks.nanos(ClockId)} reads a clock ({@code ClockId}: REALTIME, MONOTONIC,
 * BOOTTIME, TAI, ...) by the fastest correct path, equal to what clock_gettime returns. Then, as the need arises:
 * <ul>
 *   <li>{@code Clocks.reader(ClockId)} binds a {@code ClockReader} to one clock for hot loops;</li>
 *   <li>{@code Clocks.ticks()} timestamps now and {@code Clocks.ticksToNanos} converts later, off the hot path
 *       ({@code EventRecorder} records events that way);</li>
 *   <li>{@code Snapshot} and {@code CrossTimestamp} read several clocks at one instant;</li>
 *   <li>{@code SyncStatus} is the kernel's NTP state (adjtimex); {@code KernelClocks} the kernel's own paths
 *       (clock_gettime, the system call, clock_getres); {@code Clocks.diagnostics()} says what serves each clock
 *       and why.</li>
 * </ul>
 *
 * <p>Exported, and API: {@code org.timekeeping4j} (the clocks above) and {@code org.timekeeping4j.device}
 * (PTP hardware clocks, PPS sources, clocks with error bounds from ClockBound or adjtimex, and the VMClock page:
 * time and disruptions in a VM). Nothing else is API. The exported API takes no address and hands out no
 * handle, so the native access granted to this module stays behind it.
 *
 * <p>The other packages are the implementation, shaped like the kernel's own time code: the counters
 * ({@code clocksource}), a user-space timekeeper and its steering ({@code timekeeper}, {@code adjust}), the
 * kernel's vDSO data found and read ({@code vdso}), the machine code and raw bindings ({@code machine},
 * {@code linux}, {@code arch}), and what serves each clock ({@code serving}, {@code config}, {@code disruption}).
 * Two modules of this project reach some of them through qualified exports: the CLI ({@code linux}, {@code config}) and the
 * simulation module, which holds what no library read uses (the counter selection
 * and calibration, the simulated timekeepers of {@code tk4j verify skew}).
 */
module org.timekeeping4j {
    exports org.timekeeping4j;
    exports org.timekeeping4j.device;

    // The CLI's diagnostics read the raw bindings (tk4j info, verify abi).
    exports org.timekeeping4j.linux to org.timekeeping4j.cli, org.timekeeping4j.simulation;
    // The simulation module (what no library read uses: the counter selection and calibration, the simulated
    // timekeepers of tk4j verify skew) builds on the counter reads, the timekeeper and its adjuster.
    exports org.timekeeping4j.arch to org.timekeeping4j.simulation;
    exports org.timekeeping4j.clocksource to org.timekeeping4j.simulation;
    exports org.timekeeping4j.config to org.timekeeping4j.simulation, org.timekeeping4j.cli;
    exports org.timekeeping4j.machine to org.timekeeping4j.simulation;
    exports org.timekeeping4j.timekeeper to org.timekeeping4j.simulation;
    exports org.timekeeping4j.adjust to org.timekeeping4j.simulation;
}
