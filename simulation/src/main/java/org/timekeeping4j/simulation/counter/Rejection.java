package org.timekeeping4j.simulation.counter;

/**
 * A counter candidate that was not used, and why.
 *
 * @param candidate what was considered ("lfence;rdtsc", "CPUID 0x15 frequency", ...)
 * @param reason    one line a person can act on
 */
public record Rejection(String candidate, String reason) {
    @Override
    public String toString() {
        return candidate + ": " + reason;
    }
}
