package org.timekeeping4j.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the kernel says of its clocksource and of the CPU's counter, from sysfs and procfs.
 * Every method reads the files again (no caching): the kernel may switch clocksource at any time.
 * A file that cannot be read yields an empty answer, never an exception.
 */
public final class KernelInfo {

    static final Path CLOCKSOURCE = Path.of("/sys/devices/system/clocksource/clocksource0");
    static final Path CPUINFO = Path.of("/proc/cpuinfo");

    /** The CPU flags that say whether the counter can be trusted for timekeeping (x86 and arm64 names). */
    public static final List<String> COUNTER_FLAGS = List.of(
            "constant_tsc", "nonstop_tsc", "rdtscp", "lfence_rdtsc", "tsc_known_freq", "tsc_reliable", "invariant_tsc",
            "evtstrm");

    private KernelInfo() {}

    /** The kernel's current clocksource ("tsc", "arch_sys_counter", "kvm-clock", ...), or "" if unreadable. */
    public static String currentClocksource() {
        return firstLine(CLOCKSOURCE.resolve("current_clocksource"));
    }

    /** The clocksources the kernel could switch to, in its order. */
    public static List<String> availableClocksources() {
        String line = firstLine(CLOCKSOURCE.resolve("available_clocksource"));
        return line.isEmpty() ? List.of() : List.of(line.trim().split("\\s+"));
    }

    /** All CPU flags of the first processor in /proc/cpuinfo ("flags" on x86, "Features" on arm64). */
    public static Set<String> cpuFlags() {
        return cpuFlags(CPUINFO);
    }

    static Set<String> cpuFlags(Path cpuinfo) {
        try {
            for (String line : Files.readAllLines(cpuinfo)) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("flags") || lower.startsWith("features")) {
                    int colon = line.indexOf(':');
                    if (colon >= 0) {
                        return new LinkedHashSet<>(Arrays.asList(line.substring(colon + 1).trim().split("\\s+")));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable (hardened /proc, not Linux): no flags known
        }
        return Set.of();
    }

    /** Those of {@link #COUNTER_FLAGS} that this CPU has. */
    public static List<String> counterFlags() {
        Set<String> flags = cpuFlags();
        return COUNTER_FLAGS.stream().filter(flags::contains).toList();
    }

    static String firstLine(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return lines.isEmpty() ? "" : lines.get(0).trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
