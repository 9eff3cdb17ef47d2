package org.timekeeping4j.linux;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
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
        // java.io and a hand-made split: exact mode's discovery reads this (the ordered counter read), and on a
        // cold JVM every regex, stream or NIO reader first used costs milliseconds.
        String text = readAscii(cpuinfo.toString(), 1 << 20);
        if (text == null) {
            return Set.of(); // unreadable (hardened /proc, not Linux): no flags known
        }
        for (int at = 0; at < text.length(); ) {
            int eol = text.indexOf('\n', at);
            if (eol < 0) {
                eol = text.length();
            }
            if (text.regionMatches(true, at, "flags", 0, 5) || text.regionMatches(true, at, "features", 0, 8)) {
                int colon = text.indexOf(':', at);
                if (colon >= 0 && colon < eol) {
                    return words(text, colon + 1, eol);
                }
            }
            at = eol + 1;
        }
        return Set.of();
    }

    /** The words (runs of non-whitespace) of {@code text} from {@code from} to {@code to}, in order. */
    private static Set<String> words(String text, int from, int to) {
        Set<String> words = new LinkedHashSet<>();
        int start = -1;
        for (int i = from; i <= to; i++) {
            boolean space = i == to || Character.isWhitespace(text.charAt(i));
            if (space && start >= 0) {
                words.add(text.substring(start, i));
                start = -1;
            } else if (!space && start < 0) {
                start = i;
            }
        }
        return words;
    }

    /**
     * The running kernel's release (uname -r) from /proc/sys/kernel/osrelease (java.io: no FFM handle), or uname(2)'s
     * where that file cannot be read.
     *
     * @return the release, e.g. "6.18.0"
     */
    public static String release() {
        String text = readAscii("/proc/sys/kernel/osrelease", 4096);
        if (text != null && !text.isBlank()) {
            return text.strip();
        }
        return LinuxTime.uname().release();
    }

    /** A file's first {@code max} bytes as US-ASCII, or null where it cannot be read; java.io only. */
    static String readAscii(String file, int max) {
        try (java.io.FileInputStream in = new java.io.FileInputStream(file)) {
            return new String(in.readNBytes(max), java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Those of {@link #COUNTER_FLAGS} that this CPU has. */
    public static List<String> counterFlags() {
        Set<String> flags = cpuFlags();
        return COUNTER_FLAGS.stream().filter(flags::contains).toList();
    }

    static String firstLine(Path file) {
        String text = readAscii(file.toString(), 1 << 16);
        if (text == null) {
            return "";
        }
        int eol = text.indexOf('\n');
        return (eol < 0 ? text : text.substring(0, eol)).trim();
    }
}
