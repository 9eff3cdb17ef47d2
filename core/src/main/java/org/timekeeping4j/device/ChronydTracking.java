package org.timekeeping4j.device;

import java.net.InetAddress;
import java.time.Instant;

/**
 * One tracking report of chronyd (RPY_TRACKING, what {@code chronyc tracking} prints), as {@link Chronyd} decoded
 * it, with the CLOCK_MONOTONIC instants around it and the bound ClockBound's daemon derives from it.
 *
 * <p><b>The bound</b> ({@link #boundNanos()}, aws/clock-bound's chronyd_snapshot_poller.rs):
 * {@code ceil((root_delay / 2 + root_dispersion + |current_correction|) * 1e9)} ns, true as of
 * {@link #monotonicNanos()}: chronyd computes the root dispersion and the correction when it answers, between
 * {@link #requestMonotonicNanos()} and {@link #monotonicNanos()}. It holds only with the drift since then added,
 * which this record does not do. (ClockBound's daemon stamps the report with the instant before its request.)
 *
 * <p>Seconds and ppm are chrony's, decoded exactly from its 32-bit floats (about 7 significant digits).
 *
 * @param referenceId           the reference's id (an IPv4 address, a refclock's name, 0x7F7F0101 "LOCAL"; 0
 *                              where chronyd has none)
 * @param referenceAddress      the reference's IP address; null for a reference clock or the local reference
 * @param stratum               chronyd's stratum (0 while unsynchronised)
 * @param leap                  the leap status
 * @param referenceTime         when chronyd last updated its reference (UTC); the epoch if never
 * @param currentCorrection     seconds the system clock is slow by: the correction chronyd is still slewing in
 *                              (chronyc's "System time", printed as "fast" where negative)
 * @param lastOffset            seconds: the offset at the last clock update
 * @param rmsOffset             seconds: the long-term average of the offset
 * @param frequencyPpm          ppm: the system clock's frequency error that chronyd corrects (chronyc prints a
 *                              negative one as "slow")
 * @param residualFrequencyPpm  ppm: the reference's frequency against chronyd's correction
 * @param skewPpm               ppm: the estimated error bound of the frequency
 * @param rootDelay             seconds: the network delays to the stratum-1 source, summed
 * @param rootDispersion        seconds: the dispersion accumulated up to the stratum-1 source, at the report
 * @param lastUpdateInterval    seconds between the last two clock updates
 * @param requestMonotonicNanos CLOCK_MONOTONIC just before the (first) request was sent
 * @param monotonicNanos        CLOCK_MONOTONIC when the reply arrived: the instant the report and the bound are as of
 */
record ChronydTracking(int referenceId, InetAddress referenceAddress, int stratum, Leap leap, Instant referenceTime,
        double currentCorrection, double lastOffset, double rmsOffset, double frequencyPpm,
        double residualFrequencyPpm, double skewPpm, double rootDelay, double rootDispersion,
        double lastUpdateInterval, long requestMonotonicNanos, long monotonicNanos) {

    /** chronyd's leap status (ntp.h's NTP_Leap, in its order: the wire value is the ordinal). */
    enum Leap {
        /** No leap second pending. */
        NORMAL,
        /** A leap second is inserted at the end of this UTC day. */
        INSERT_SECOND,
        /** A second is deleted at the end of this UTC day. */
        DELETE_SECOND,
        /** chronyd is not synchronised. */
        UNSYNCHRONISED
    }

    /** {@return whether chronyd is synchronised: a leap status other than UNSYNCHRONISED and a reference id} */
    boolean synchronised() {
        return leap != Leap.UNSYNCHRONISED && referenceId != 0;
    }

    /** {@return ClockBound's bound in ns, as of {@link #monotonicNanos()}: see the class comment} */
    long boundNanos() {
        return boundNanos(rootDelay, rootDispersion, currentCorrection);
    }

    /**
     * ClockBound's rule: {@code ceil((rootDelay / 2 + rootDispersion + |currentCorrection|) * 1e9)}. Saturates at
     * Long.MAX_VALUE (chrony's largest float is about 4.6e18 s); chrony's floats are never NaN.
     *
     * @param rootDelay         seconds
     * @param rootDispersion    seconds
     * @param currentCorrection seconds
     * @return the bound in ns
     */
    static long boundNanos(double rootDelay, double rootDispersion, double currentCorrection) {
        return (long) Math.ceil((rootDelay / 2 + rootDispersion + Math.abs(currentCorrection)) * 1e9);
    }
}
