package org.timekeeping4j.device;

import org.timekeeping4j.ClockId;

/**
 * One measurement of a PTP hardware clock against a system clock: the sample with the shortest
 * system-clock interval around the PHC read, as phc2sys keeps it.
 *
 * @param method       the method that served
 * @param systemClock  the system clock compared against
 * @param offsetNanos  (pre + post) / 2 - phc: positive when the system clock is ahead of the PHC
 * @param delayNanos   post - pre of the kept sample (0 for a precise cross timestamp)
 * @param phcNanos     the PHC reading of the kept sample
 * @param systemNanos  the system clock's midpoint of the kept sample
 * @param samples      how many samples were taken
 */
public record PtpOffset(PtpClock.Method method, ClockId systemClock, long offsetNanos, long delayNanos,
                        long phcNanos, long systemNanos, int samples) {}
