package org.timekeeping4j;

/**
 * Which path serves a clock, and why.
 *
 * @param clock  the clock
 * @param path   {@link Path#COUNTER}: the user-space timekeeper over the CPU counter; {@link Path#KERNEL}:
 *               clock_gettime
 * @param reason one line
 */
public record ClockSource(ClockId clock, Path path, String reason) {

    /** The two paths. */
    public enum Path { COUNTER, KERNEL }
}
