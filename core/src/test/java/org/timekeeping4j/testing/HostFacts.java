package org.timekeeping4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.Platform;

/**
 * The one place where tests read the host they run on, and the assumptions built on it. A test asserts what the
 * library promises; where a promise applies only on some hosts, the test is gated here, on what the library
 * decided (its discovery's verdict, as {@link Clocks#diagnostics()} reports it) wherever that is the question,
 * and on a host fact only where the test needs the fact itself (a second clocksource to switch to, root to switch
 * it). Every skip names the fact it found. Nothing here asserts a fact of the host: TSC_AUX, the CPU count, the
 * uptime and which clocksources exist are the host's business.
 */
public final class HostFacts {

    private static final Path CLOCKSOURCE = Path.of("/sys/devices/system/clocksource/clocksource0");

    /** The clocksources whose counter exact mode reads through the vDSO data on x86_64 (clock_mode TSC, PVCLOCK). */
    public static final List<String> X86_VDSO_CLOCKSOURCES = List.of("tsc", "kvm-clock");

    private HostFacts() {}

    /** {@return the JVM's architecture as the library names it ("x86_64", "aarch64", ...)} */
    public static String arch() {
        return Platform.ARCH;
    }

    /** {@return the kernel's current clocksource, "" where sysfs does not say} */
    public static String currentClocksource() {
        return KernelInfo.currentClocksource();
    }

    /** {@return the clocksources the kernel lists as available, in its order} */
    public static List<String> availableClocksources() {
        return KernelInfo.availableClocksources();
    }

    /** {@return the CPU flags of the first processor (/proc/cpuinfo)} */
    public static Set<String> cpuFlags() {
        return KernelInfo.cpuFlags();
    }

    /** {@return the kernel's command line, "" where /proc/cmdline is unreadable} */
    public static String kernelCommandLine() {
        try {
            return Files.readString(Path.of("/proc/cmdline")).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** {@return whether this process runs with effective uid 0} */
    public static boolean root() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** {@return the path of the writable current_clocksource file} */
    public static Path currentClocksourceFile() {
        return CLOCKSOURCE.resolve("current_clocksource");
    }

    /**
     * Skips unless exact mode serves in this JVM: the library's discovery decided it (the stage is EXACT and the
     * kernel's data serves). {@code KernelVdsoTest} holds the library to serving where the kernel reads the TSC,
     * so this gate cannot hide a refusal there.
     */
    public static void assumeExactModeServes() {
        Diagnostics d = Clocks.diagnostics();
        assumeTrue(d.vdsoData().serves(), () -> "exact mode does not serve in this JVM (the library's verdict, on "
                + arch() + " with clocksource " + currentClocksource() + "): " + d.vdsoData().why());
    }

    /** Skips unless this JVM runs on x86_64 (the pvclock and time-namespace readers are x86_64 code). */
    public static void assumeX86(String what) {
        assumeTrue("x86_64".equals(arch()), () -> what + " runs on x86_64 only; this JVM runs on " + arch());
    }

    /** Skips unless this process is root. */
    public static void assumeRoot(String what) {
        assumeTrue(root(), () -> what + " needs root; this process runs as " + System.getProperty("user.name"));
    }

    /** Skips unless {@code clocksource} is available here. */
    public static void assumeAvailable(String clocksource) {
        List<String> available = availableClocksources();
        assumeTrue(available.contains(clocksource), () -> clocksource + " is not an available clocksource here"
                + " (available_clocksource lists " + String.join(" ", available) + ")");
    }

    /**
     * The clocksource exact mode reads that a switch from kvm-clock goes to: another of
     * {@link #X86_VDSO_CLOCKSOURCES} that is available; skips, naming what is available, where there is none.
     */
    public static String assumeSecondVdsoClocksource() {
        List<String> available = availableClocksources();
        String other = available.stream().filter(c -> !c.equals("kvm-clock") && X86_VDSO_CLOCKSOURCES.contains(c))
                .findFirst().orElse(null);
        assumeTrue(other != null, () -> "no second clocksource that the vDSO reads to switch to: available_clocksource"
                + " lists " + String.join(" ", available) + " (kernel command line: " + timePart(kernelCommandLine())
                + ")");
        return other;
    }

    /** The time-related words of a kernel command line (clocksource=, tsc=, ...), or "nothing about time". */
    static String timePart(String cmdline) {
        String words = java.util.Arrays.stream(cmdline.split("\\s+"))
                .filter(w -> w.startsWith("clocksource=") || w.startsWith("tsc=") || w.startsWith("notsc")
                        || w.startsWith("no-kvmclock") || w.startsWith("nohz") || w.startsWith("highres"))
                .reduce((a, b) -> a + " " + b).orElse("");
        return words.isEmpty() ? "nothing about time" : words;
    }
}
