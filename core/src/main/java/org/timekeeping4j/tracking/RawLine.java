package org.timekeeping4j.tracking;

/**
 * The tracker's raw line after its last update: the counter calibration it serves CLOCK_MONOTONIC_RAW with,
 * {@code raw_ns(c) = rawBaseNanos + (((c - counterBase) * mult) >> shift)} for counter values within
 * {@code validForNanos} after {@code counterBase}, to the tracker's phase error. The tracker's own facts; the
 * public {@code org.timekeeping4j.Calibration} is built from them.
 *
 * @param frequencyHz    counter cycles per second of CLOCK_MONOTONIC_RAW, as measured against the kernel
 * @param mult           the raw line's multiplier
 * @param shift          the raw line's shift
 * @param uncertaintyPpb the bound on the frequency's relative error
 * @param counterBase    the counter value of the update
 * @param rawBaseNanos   CLOCK_MONOTONIC_RAW at {@code counterBase}
 * @param validForNanos  how long after the update the parameters are served (then the kernel is)
 * @param baselineNanos  the kernel time the frequency was measured over
 */
public record RawLine(double frequencyHz, long mult, int shift, double uncertaintyPpb, long counterBase,
                      long rawBaseNanos, long validForNanos, long baselineNanos) {}
