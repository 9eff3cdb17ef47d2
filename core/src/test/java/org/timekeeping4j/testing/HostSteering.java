package org.timekeeping4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.linux.LinuxTime;

/**
 * The one gate in front of every test that changes the kernel's clock state (adjtimex writes, clock_settime):
 * {@link #assumeMaySteer} skips the test, saying why, unless all of these hold:
 * <ol>
 *   <li>the system property {@value #PROPERTY} is {@code true} (Maven: {@code mvn -B verify
 *       -Dtimekeeping4j.test.steerHost=true}; surefire forwards it). A lab guest sets it: the clock there is the
 *       guest's own. On a developer's machine or a shared CI host it is a change to everyone's clock, so it is
 *       opt-in;</li>
 *   <li>the process has CAP_SYS_TIME in its effective set ({@code /proc/self/status} CapEff, bit 25): root in a
 *       default container has not;</li>
 *   <li>no time daemon runs (a process whose {@code /proc/PID/comm} is one of {@link #DAEMONS}): it would fight the
 *       test's steering and be disturbed by it;</li>
 *   <li>nothing else is steering: the kernel's frequency, PLL offset and tick read the same twice, a little over a
 *       second apart (the PLL offset moves at every second's overflow while a slew runs).</li>
 * </ol>
 * The checks run in that order and stop at the first that fails: without the property nothing is read.
 */
public final class HostSteering {

    /** The opt-in: exactly this name, also used by the kernel labs. */
    public static final String PROPERTY = "timekeeping4j.test.steerHost";

    /** CAP_SYS_TIME's bit in the capability sets (linux/capability.h). */
    static final int CAP_SYS_TIME = 25;

    /** Process names of time daemons, as /proc/PID/comm shows them (15 characters at most). */
    public static final Set<String> DAEMONS = Set.of("chronyd", "ntpd", "openntpd", "systemd-timesyn", "ptp4l",
            "phc2sys", "timemaster", "ts2phc");

    /** The pause between the two adjtimex reads: past one second's overflow, where a PLL slew moves the offset. */
    static final long SETTLE_NANOS = 1_100_000_000L;

    private HostSteering() {}

    /** Skips the calling test (JUnit assumption, with the reason) unless it may steer this kernel's clock now. */
    public static void assumeMaySteer() {
        Optional<String> why = whyNot();
        assumeTrue(why.isEmpty(), () -> why.orElse(""));
    }

    /** Why this process may not steer the kernel's clock now; empty when it may. */
    public static Optional<String> whyNot() {
        return whyNot(System.getProperty(PROPERTY), HostSteering::procSelfStatus, HostSteering::processNames,
                HostSteering::timexPair);
    }

    /** The checks over their inputs, each read only when the checks before it passed. */
    static Optional<String> whyNot(String property, Supplier<String> procStatus, Supplier<List<String>> comms,
                                   Supplier<TimexReading[]> timexPair) {
        if (!"true".equalsIgnoreCase(property == null ? "" : property.trim())) {
            return Optional.of("changes the kernel's clock state: opt in on a machine whose clock may be steered "
                    + "with -D" + PROPERTY + "=true (" + PROPERTY + " is " + (property == null ? "unset" : "'"
                    + property + "'") + ")");
        }
        String status = procStatus.get();
        Optional<Boolean> cap = hasCapSysTime(status);
        if (cap.isEmpty()) {
            return Optional.of("cannot tell whether this process has CAP_SYS_TIME: no CapEff line in /proc/self/status");
        }
        if (!cap.get()) {
            return Optional.of("this process lacks CAP_SYS_TIME (CapEff bit 25 clear, user "
                    + System.getProperty("user.name") + "); a container needs --cap-add SYS_TIME");
        }
        List<String> daemons = daemons(comms.get());
        if (!daemons.isEmpty()) {
            return Optional.of("a time daemon is running (" + String.join(", ", daemons)
                    + "): it steers this clock too; stop it or run the test in a guest kernel");
        }
        TimexReading[] pair = timexPair.get();
        if (pair == null) {
            return Optional.of("adjtimex cannot be read here, so steering cannot be checked for");
        }
        TimexReading a = pair[0];
        TimexReading b = pair[1];
        if (moved(pair)) {
            return Optional.of(String.format(Locale.ROOT, "something else is steering this clock: between two adjtimex"
                    + " reads %d ms apart the frequency went %d -> %d (2^-16 ppm), the offset %d -> %d, the tick %d"
                    + " -> %d us", SETTLE_NANOS / 1_000_000, a.freq(), b.freq(), a.offset(), b.offset(), a.tick(),
                    b.tick()));
        }
        return Optional.empty();
    }

    /** The time daemons among these process names. */
    private static List<String> daemons(List<String> comms) {
        return comms.stream().filter(DAEMONS::contains).distinct().toList();
    }

    /** Whether the kernel's frequency, PLL offset or tick differ between the two adjtimex reads. */
    private static boolean moved(TimexReading[] pair) {
        return pair[0].freq() != pair[1].freq() || pair[0].offset() != pair[1].offset()
                || pair[0].tick() != pair[1].tick();
    }

    /** Bit 25 of the CapEff line of a /proc/PID/status text; empty when there is no such line. */
    static Optional<Boolean> hasCapSysTime(String procStatus) {
        return effectiveCapabilities(procStatus).map(eff -> (eff >>> CAP_SYS_TIME & 1) != 0);
    }

    /** The CapEff line of a /proc/PID/status text, as a bit set; empty when there is no such line. */
    static Optional<Long> effectiveCapabilities(String procStatus) {
        if (procStatus == null) {
            return Optional.empty();
        }
        for (String line : procStatus.split("\n")) {
            if (line.startsWith("CapEff:")) {
                return Optional.of(Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16));
            }
        }
        return Optional.empty();
    }

    static String procSelfStatus() {
        try {
            return Files.readString(Path.of("/proc/self/status"));
        } catch (IOException e) {
            return null;
        }
    }

    /** Every process's comm; a process that ends while listed is left out. */
    static List<String> processNames() {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    names.add(Files.readString(p.resolve("comm")).trim());
                } catch (IOException e) {
                    // gone meanwhile, or hidden (hidepid): nothing to name
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to list
        }
        return names;
    }

    private static TimexReading[] timexPair() {
        try {
            TimexReading a = LinuxTime.clockAdjtimeRead(0);
            // Time must pass: a PLL slew moves the offset only at a second's overflow (SETTLE_NANOS).
            LockSupport.parkNanos(SETTLE_NANOS);
            return new TimexReading[] {a, LinuxTime.clockAdjtimeRead(0)};
        } catch (RuntimeException e) {
            return null;
        }
    }
}
