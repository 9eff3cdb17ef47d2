/**
 * A user-space timekeeper (kernel/time/timekeeping.c in Java) over any
 * {@link org.timekeeping4j.clocksource.Clocksource}: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, their
 * coarse variants and independent user clocks ({@link org.timekeeping4j.timekeeper.UserClock}), read lock-free
 * and allocation-free, steered by an {@link org.timekeeping4j.adjust.ClockAdjustment}.
 *
 * <p>Not exported: it is {@link org.timekeeping4j.device.FastPtpClock}'s read path, and serves the library (which
 * clocks a counter read serves, {@link
 * org.timekeeping4j.timekeeper.CounterClock}) and {@code tk4j verify skew}, which checks it over a simulated counter.
 */
package org.timekeeping4j.timekeeper;
