/**
 * The clocks: what most applications need, and all they need.
 *
 * <p>Start with {@link org.timekeeping4j.Clocks#nanos(ClockId)}: it reads every Linux clock
 * ({@link org.timekeeping4j.ClockId}) on the fastest correct path, decided once per process: exact mode by default
 * (the kernel's own vDSO data read with the vDSO's arithmetic, equal to clock_gettime); where the kernel's data
 * cannot be read that way, clock_gettime. {@link org.timekeeping4j.ClockReader} binds one clock for hot loops.
 * Then: {@link org.timekeeping4j.Snapshot} and {@link org.timekeeping4j.CrossTimestamp} read several clocks at
 * one instant; {@link org.timekeeping4j.EventRecorder} timestamps events cheaply and converts them later;
 * {@link org.timekeeping4j.KernelClocks} holds the kernel's own paths (the vDSO's clock_gettime, the system call,
 * clock_getres); {@link org.timekeeping4j.Diagnostics} says what serves each clock and why;
 * {@link org.timekeeping4j.SyncStatus} is the kernel's NTP state (adjtimex). PTP hardware clocks, PPS sources,
 * clocks with error bounds and the VMClock page are in {@link org.timekeeping4j.device}.
 */
package org.timekeeping4j;
