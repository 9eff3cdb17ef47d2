/**
 * Simulated timekeepers for {@code tk4j verify skew}: core's user-space timekeeper over a simulated or hardware
 * counter ({@link org.timekeeping4j.simulation.SimulatedTimekeeper}), steered by the project's NTP-style adjuster
 * ({@link org.timekeeping4j.simulation.SteeredTimekeeper}), so the CLI can show what a timekeeper of one's own
 * gets wrong where the kernel's is followed exactly.
 */
package org.timekeeping4j.simulation;
