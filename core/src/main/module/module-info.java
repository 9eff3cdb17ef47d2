/**
 * timekeeping4j: Linux timekeeping for the JVM through the Foreign Function and Memory API.
 *
 * <p>The packages are shaped like the kernel's own time code. Exported, and API:
 * <ul>
 *   <li>{@code org.timekeeping4j}: start here. {@code Clocks.nanos(ClockId)} reads a clock by the fastest correct
 *       path, {@code Clocks.clock(ClockId)} binds a {@code ClockReader} for hot loops, {@code Clocks.ticks()} and
 *       {@code Clocks.ticksToNanos} timestamp now and convert later ({@code EventRecorder} records events that
 *       way), {@code Snapshot} and {@code CrossTimestamp} read clocks at one instant; {@code KernelClocks} is the
 *       kernel's own paths (clock_gettime, the system call, clock_getres), {@code Clocks.diagnostics()} says what
 *       serves each clock and why, {@code SyncStatus} is the kernel's NTP state. What most applications need,
 *       and all they need.</li>
 *   <li>{@code org.timekeeping4j.device}: PTP hardware clocks (and {@code DynamicClockId}, any clock behind an open
 *       file descriptor), PPS sources, bounded clocks (ClockBound,
 *       adjtimex bounds) and the VMClock page (time and disruptions in a VM).</li>
 *   <li>{@code org.timekeeping4j.clocksource}: the counter abstraction (kernel/time/clocksource.c):
 *       {@code Clocksource}, the hardware counters and their selection, and {@code SimulatedCounter}, a counter
 *       whose rate and value a test sets, for users' own tests of code that runs on a timekeeper.</li>
 *   <li>{@code org.timekeeping4j.timekeeper}: a user-space timekeeper over any {@code Clocksource}
 *       (kernel/time/timekeeping.c).</li>
 *   <li>{@code org.timekeeping4j.adjust}: the adjustment a timekeeper applies (kernel/time/ntp.c's narrow pull
 *       interface), needed to build a timekeeper.</li>
 * </ul>
 *
 * <p>Not exported: {@code machine} (the machine code and its downcalls: the counter stubs, the kernel-data
 * reads, which take raw addresses and hand out method handles),
 * {@code linux} (the raw FFM bindings), {@code arch} (the architectures' facts the machine code needs: the
 * counter reads and their order, the vDSO read algorithms), {@code vdso} (exact mode: the kernel's vDSO data found and read),
 * {@code config} (the system properties, parsed once), {@code disruption} (the clock disruptions the library saw, which make older ticks inexact) and {@code simulation} (the simulated
 * timekeeper that {@code tk4j verify skew} checks). Native access granted to this module stays behind the
 * exported API, which takes no address and hands out no handle. The CLI, a module of this project, reaches
 * {@code linux} and {@code simulation} through qualified exports and nothing else.
 */
module org.timekeeping4j {
    exports org.timekeeping4j;
    exports org.timekeeping4j.adjust;
    exports org.timekeeping4j.clocksource;
    exports org.timekeeping4j.device;
    exports org.timekeeping4j.timekeeper;

    // The CLI's diagnostics (tk4j info, verify) read the raw bindings and drive the simulated timekeepers.
    exports org.timekeeping4j.linux to org.timekeeping4j.cli;
    exports org.timekeeping4j.simulation to org.timekeeping4j.cli;
}
