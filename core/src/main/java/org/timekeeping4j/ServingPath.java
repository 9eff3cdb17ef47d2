package org.timekeeping4j;

/**
 * Which path serves a clock, and why.
 *
 * @param clock  the clock
 * @param path   {@link Path#COUNTER}: the user-space timekeeper over the CPU counter; {@link Path#KERNEL}:
 *               clock_gettime
 * @param reason one line
 * @param since  when this path began serving the clock: the process's first read while exact mode is
 *               discovered, then the end of discovery
 */
public record ServingPath(ClockId clock, Path path, String reason, java.time.Instant since) {

    /** The two paths. */
    public enum Path {
        /** A counter read in user space: exact mode (the kernel's vDSO data). */
        COUNTER,
        /** clock_gettime. */
        KERNEL
    }
}
