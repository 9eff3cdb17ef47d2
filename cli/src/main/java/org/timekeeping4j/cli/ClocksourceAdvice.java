package org.timekeeping4j.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What the kernel's clocksource costs a reader, decided from names alone (a pure function: {@link #of}): where
 * it makes every clock read a system call (hpet, acpi_pm: no vDSO read at all; kvm-clock and xen where their
 * pvclock page is not stable, which the caller says), and which faster clocksource the kernel offers instead.
 *
 * @param clocksource the slow clocksource
 * @param faster      a clocksource the kernel lists as available that its vDSO reads in user space, or null
 * @param caveat      what {@code faster} needs to be fast, or "" (kvm-clock: a stable pvclock page)
 */
record ClocksourceAdvice(String clocksource, String faster, String caveat) {

    /** The sysfs file a root user writes a clocksource's name into. */
    static final String CURRENT = "/sys/devices/system/clocksource/clocksource0/current_clocksource";

    /**
     * Clocksources the vDSO never reads (no vDSO clock mode since Linux 5.6 for hpet; never for the others): every
     * clock_gettime enters the kernel.
     */
    static final Set<String> NO_VDSO_READ = Set.of("hpet", "acpi_pm", "pit", "jiffies", "refined-jiffies");

    /** Clocksources the vDSO reads through a pvclock page only while the hypervisor marks it stable. */
    static final Set<String> PVCLOCK = Set.of("kvm-clock", "xen");

    /**
     * The advice for a kernel on {@code current} that lists {@code available}, on a {@code machine} ("x86_64",
     * "aarch64"), or empty where reads do not pay a system call.
     *
     * @param pvclockFallsBack for kvm-clock and xen: whether their vDSO read falls back to the system call (no
     *                         stable pvclock page); ignored for the others
     */
    static Optional<ClocksourceAdvice> of(String current, List<String> available, String machine,
                                          boolean pvclockFallsBack) {
        if (current == null || current.isEmpty()) {
            return Optional.empty();
        }
        boolean slow = NO_VDSO_READ.contains(current) || PVCLOCK.contains(current) && pvclockFallsBack;
        if (!slow) {
            return Optional.empty();
        }
        String counter = counterClocksource(machine);
        if (counter != null && available.contains(counter) && !counter.equals(current)) {
            return Optional.of(new ClocksourceAdvice(current, counter, ""));
        }
        if ("x86_64".equals(machine) && available.contains("kvm-clock") && !PVCLOCK.contains(current)) {
            return Optional.of(new ClocksourceAdvice(current, "kvm-clock",
                    " (read in user space where the host marks its pvclock page stable)"));
        }
        return Optional.of(new ClocksourceAdvice(current, null, ""));
    }

    /** The clocksource that is the CPU's own counter on {@code machine}, or null for another architecture. */
    static String counterClocksource(String machine) {
        return switch (machine == null ? "" : machine) {
            case "x86_64" -> "tsc";
            case "aarch64" -> "arch_sys_counter";
            default -> null;
        };
    }

    /**
     * The advice in words: one line saying what a read costs here against the counter's ("hpet: reads are syscalls:
     * 1,830 ns (rdtsc: 21 ns)": under 66 columns, beside info's label), then, where the kernel offers a
     * faster clocksource, one saying how to switch (the caller folds it to its width).
     *
     * @param readNs      a clock read's cost measured here, ns
     * @param counterNs   the counter read's, ns, or NaN where it could not be measured
     * @param counterRead the counter read's instructions ("rdtsc"), or null
     */
    List<String> lines(double readNs, double counterNs, String counterRead) {
        List<String> lines = new ArrayList<>();
        String against = Double.isNaN(counterNs) || counterRead == null ? " each"
                : String.format(Locale.ROOT, " (%s: %s ns)", counterRead, ns(counterNs));
        lines.add(String.format(Locale.ROOT, "%s: reads are syscalls: %s ns%s", clocksource,
                ns(readNs), against));
        if (faster != null) {
            lines.add(String.format("faster: %s%s, which the kernel offers: as root, echo %s > %s; at boot, the kernel"
                    + " parameter clocksource=%s", faster, caveat, faster, CURRENT, faster));
        }
        return lines;
    }

    /** "1,830", "21", "9.5": whole ns from 10 up, one decimal below. */
    static String ns(double v) {
        return v >= 10 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
