package org.timekeeping4j.simulation.counter;

/**
 * A counter frequency and how well it is known.
 *
 * @param hz             cycles per second
 * @param uncertaintyPpb the bound on the relative error, parts per billion
 * @param source         where it came from ("CPUID 0x40000010", "cntfrq_el0", "calibrated against
 *                       CLOCK_MONOTONIC_RAW over 200 ms", ...)
 */
public record Frequency(double hz, double uncertaintyPpb, String source) {

    /**
     * The relative difference to another frequency.
     *
     * @param otherHz the frequency to compare with, Hz
     * @return {@code (hz - otherHz) / otherHz} in ppm
     */
    public double ppmFrom(double otherHz) {
        return (hz - otherHz) / otherHz * 1e6;
    }

    @Override
    public String toString() {
        return String.format("%.6f MHz +/- %.0f ppb (%s)", hz / 1e6, uncertaintyPpb, source);
    }
}
