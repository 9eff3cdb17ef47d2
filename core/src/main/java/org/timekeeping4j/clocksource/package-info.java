/**
 * Counters, as the kernel's clocksource layer (kernel/time/clocksource.c) has them: a free-running counter
 * ({@link org.timekeeping4j.clocksource.Clocksource}) and its conversion to nanoseconds
 * ({@link org.timekeeping4j.clocksource.MultShift}).
 *
 * <p>API for two uses: choosing or inspecting the counter this JVM reads
 * ({@link org.timekeeping4j.clocksource.CounterSelector}, {@link org.timekeeping4j.clocksource.CounterSelection}),
 * and driving a {@link org.timekeeping4j.timekeeper.Timekeeper} with a counter of one's own, in particular
 * {@link org.timekeeping4j.clocksource.SimulatedCounter}, whose rate, width, jitter and time a test controls.
 */
package org.timekeeping4j.clocksource;
