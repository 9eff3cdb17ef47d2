/**
 * Counters, as the kernel's clocksource layer (kernel/time/clocksource.c) has them: a free-running counter
 * ({@link org.timekeeping4j.clocksource.Clocksource}) and its conversion to nanoseconds
 * ({@link org.timekeeping4j.clocksource.MultShift}).
 *
 * <p>Not exported: the implementation of the clocks. It chooses and inspects the counter this JVM reads
 * ({@link org.timekeeping4j.clocksource.CounterSelector}, {@link org.timekeeping4j.clocksource.CounterSelection}),
 * which the CLI reports through a qualified export, and drives a {@link org.timekeeping4j.timekeeper.Timekeeper}
 * with a counter of its own, in particular {@link org.timekeeping4j.clocksource.SimulatedCounter}, whose rate,
 * width, jitter and time a test controls.
 */
package org.timekeeping4j.clocksource;
