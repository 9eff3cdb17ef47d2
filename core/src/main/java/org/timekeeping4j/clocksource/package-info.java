/**
 * Counters, as the kernel's clocksource layer (kernel/time/clocksource.c) has them: a free-running counter
 * ({@link org.timekeeping4j.clocksource.Clocksource}) and its conversion to nanoseconds
 * ({@link org.timekeeping4j.clocksource.MultShift}), the arithmetic the kernel's vDSO data and the user-space
 * timekeeper share.
 *
 * <p>Not exported: the implementation of the clocks. The counter selection and calibration of a user-space
 * timekeeper, which no library read uses, live in the simulation module.
 */
package org.timekeeping4j.clocksource;
