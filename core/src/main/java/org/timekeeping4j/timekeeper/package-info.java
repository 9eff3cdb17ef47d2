/**
 * A user-space timekeeper (kernel/time/timekeeping.c in Java) over any
 * {@link org.timekeeping4j.clocksource.Clocksource}: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their
 * coarse variants and independent user clocks ({@link org.timekeeping4j.timekeeper.UserClock}), read lock-free
 * and allocation-free, steered by an {@link org.timekeeping4j.adjust.ClockAdjustment}.
 */
package org.timekeeping4j.timekeeper;
