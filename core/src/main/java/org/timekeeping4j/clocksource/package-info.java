/**
 * Counters, as the kernel's clocksource layer (kernel/time/clocksource.c) has them: a free-running counter
 * ({@link org.timekeeping4j.clocksource.Clocksource}), its conversion to nanoseconds
 * ({@link org.timekeeping4j.clocksource.MultShift}), and each architecture's counter facts
 * ({@link org.timekeeping4j.clocksource.CounterArch}: which reads order, what the kernel's vDSO data calls the
 * counter).
 *
 * <p>Not exported: the implementation of the clocks. The counter selection and calibration of a user-space
 * timekeeper, which no library read uses, live in the simulation module.
 */
package org.timekeeping4j.clocksource;
