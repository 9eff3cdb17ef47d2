/**
 * How a timekeeper's adjusted clocks are steered, the narrow pull interface of the kernel's ntp.c:
 * {@link org.timekeeping4j.adjust.ClockAdjustment}, and {@link org.timekeeping4j.adjust.NtpAdjuster}, which
 * keeps a frequency offset, a bounded-rate slew (adjtime) and pending leap seconds.
 *
 * <p>Not exported: it serves the {@link org.timekeeping4j.timekeeper timekeeper}.
 */
package org.timekeeping4j.adjust;
