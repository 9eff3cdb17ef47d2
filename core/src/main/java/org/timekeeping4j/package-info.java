/**
 * The clocks: what most applications need, and all they need.
 *
 * <p>{@link org.timekeeping4j.Clocks} reads every Linux clock ({@link org.timekeeping4j.ClockId}) on the
 * fastest correct path: the CPU counter through an in-process timekeeper that follows the kernel's clocks where
 * that can be trusted, the kernel's vDSO otherwise. {@link org.timekeeping4j.ClockReader} binds one clock for
 * hot loops; {@link org.timekeeping4j.Snapshot} and {@link org.timekeeping4j.CrossTimestamp} read several clocks
 * at one instant; {@link org.timekeeping4j.EventRecorder} timestamps events cheaply and converts them later;
 * {@link org.timekeeping4j.SyncStatus} is the kernel's NTP state (adjtimex).
 */
package org.timekeeping4j;
