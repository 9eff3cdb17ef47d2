package org.timekeeping4j;

/**
 * The counter calibration the fast path uses now: what a kernel exporting its counter calibration to user space would give,
 * so that a program can turn its own counter reads into CLOCK_MONOTONIC_RAW time.
 *
 * <p>{@code raw_ns(c) = rawBaseNanos + (((c - counterBase) * mult) >> shift)} holds for counter values within
 * {@code validForNanos} after {@code counterBase}.
 *
 * @param valid          false on the kernel path (no counter calibration to export)
 * @param frequencyHz    counter cycles per second of CLOCK_MONOTONIC_RAW, as measured against the kernel
 * @param mult           the multiplier of the raw line now
 * @param shift          the shift of the raw line
 * @param uncertaintyPpb the bound on the frequency's relative error
 * @param counterBase    the counter value of the last update
 * @param rawBaseNanos   CLOCK_MONOTONIC_RAW at {@code counterBase}
 * @param validForNanos  how long after the update the parameters are served (then the kernel is)
 * @param source         where the frequency came from
 */
public record Calibration(boolean valid, double frequencyHz, long mult, int shift, double uncertaintyPpb,
                          long counterBase, long rawBaseNanos, long validForNanos, String source) {}
