package org.timekeeping4j.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The counter modes {@value Configuration#COUNTER} names, parsed here with the other properties. The library's
 * reads ask one thing of it: whether it is {@link #KERNEL} (the kernel's clocks by choice); the other modes leave
 * exact mode to decide. The simulation module's counter selection (tk4j verify skew's user-space timekeeper) uses
 * every mode.
 */
public enum CounterMode {
    /** The ordered hardware counter where it can be trusted, else the kernel. */
    AUTO,
    /** Like AUTO, stated explicitly: ordered hardware reads or the kernel. */
    ORDERED,
    /** The unordered hardware counter (cheapest, may be read early), else the kernel. */
    UNORDERED,
    /** Always the kernel (CLOCK_MONOTONIC_RAW through clock_gettime). */
    KERNEL;

    /**
     * The mode a property value names.
     *
     * @param value a mode name in any case, or null for auto
     * @return the mode
     * @throws IllegalArgumentException naming the valid values, for anything else
     */
    public static CounterMode parse(String value) {
        String v = value == null ? "auto" : value.trim().toLowerCase(Locale.ROOT);
        for (CounterMode m : values()) {
            if (m.name().toLowerCase(Locale.ROOT).equals(v)) {
                return m;
            }
        }
        throw new IllegalArgumentException(Configuration.COUNTER + "=" + value + " is not a counter mode; use one of "
                + Arrays.stream(values()).map(m -> m.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining(", ")));
    }
}
