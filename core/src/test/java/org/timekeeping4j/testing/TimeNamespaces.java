package org.timekeeping4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * New time namespaces for the tests that read clocks in one ({@code unshare -T --monotonic M --boottime B --fork}),
 * chosen from the machine the test runs on rather than assumed:
 * <ul>
 * <li><b>offsets the clocks allow</b> ({@link #offsetPairs}): the kernel refuses (ERANGE) an offset that would
 *     take the namespace's clock below zero (kernel/time/namespace.c, proc_timens_set_offset), so a negative offset
 *     is at most half of the clock's current value; a machine booted a second ago gets positive ones only;</li>
 * <li><b>who may set them</b> ({@link #prefix}): setting offsets needs CAP_SYS_TIME over the namespace's owning
 *     user namespace and creating one needs CAP_SYS_ADMIN. Root with both uses the host's user namespace; anyone
 *     else (a non-root user, root in a container without CAP_SYS_TIME) creates a user namespace of its own
 *     ({@code --user --map-root-user}), in which the process holds both over the time namespace it creates. Where
 *     neither works (user namespaces disabled), {@link #assumeUsable} skips with unshare's own message.</li>
 * </ul>
 * Nothing here changes the host: a time namespace's offsets apply to its own processes only.
 */
public final class TimeNamespaces {

    private static final Path UNSHARE = Path.of("/usr/bin/unshare");
    private static final int CAP_SYS_ADMIN = 21;

    private TimeNamespaces() {}

    /**
     * Three (monotonic, boottime) offset pairs, in seconds, for clocks now at {@code monotonicSeconds} and
     * {@code boottimeSeconds}: both positive; BOOTTIME's below MONOTONIC's (negative where BOOTTIME allows); and
     * MONOTONIC's negative where MONOTONIC allows (else zero) with BOOTTIME's far above it.
     */
    public static long[][] offsetPairs(long monotonicSeconds, long boottimeSeconds) {
        long bootBack = Math.min(500, boottimeSeconds / 2);
        long monoBack = Math.min(100, monotonicSeconds / 2);
        return new long[][] {
            {86_400, 3_600},
            {1_000, bootBack > 0 ? -bootBack : 500},
            {-monoBack, 50_000},
        };
    }

    /** {@link #offsetPairs} for this machine's clocks now. */
    public static long[][] offsetPairs() {
        return offsetPairs(ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id()) / 1_000_000_000L,
                ClockGettimeStub.clockGettimeNanos(ClockId.BOOTTIME.id()) / 1_000_000_000L);
    }

    /** True when {@code procStatus}'s CapEff has CAP_SYS_ADMIN and CAP_SYS_TIME. */
    static boolean mayUseHostUserNamespace(String procStatus) {
        return HostSteering.effectiveCapabilities(procStatus)
                .map(eff -> (eff >>> HostSteering.CAP_SYS_TIME & 1) != 0 && (eff >>> CAP_SYS_ADMIN & 1) != 0)
                .orElse(false);
    }

    /** The unshare command line that runs what follows it in a new time namespace with these offsets. */
    public static List<String> prefix(long monotonicSeconds, long boottimeSeconds) {
        List<String> cmd = new ArrayList<>(List.of(UNSHARE.toString()));
        if (!hostCapable()) {
            cmd.addAll(List.of("--user", "--map-root-user"));
        }
        cmd.addAll(List.of("-T", "--monotonic", String.valueOf(monotonicSeconds), "--boottime",
                String.valueOf(boottimeSeconds), "--fork"));
        return cmd;
    }

    /** Which of the two ways {@link #prefix} takes, in words for the build log. */
    public static String how() {
        return hostCapable() ? "as root with CAP_SYS_ADMIN and CAP_SYS_TIME"
                : "in a user namespace of its own (no CAP_SYS_TIME or CAP_SYS_ADMIN here, or not root)";
    }

    /**
     * Skips the calling test, with the reason, where this kernel or this process cannot make a time namespace
     * with offsets: no unshare, no time namespaces, or unshare's refusal of a probe (printed as it said it).
     */
    public static void assumeUsable() {
        assumeTrue(Files.isExecutable(UNSHARE), "no " + UNSHARE + " (util-linux)");
        assumeTrue(Files.exists(Path.of("/proc/self/ns/time")), "this kernel has no time namespaces");
        Optional<String> refused = probe();
        assumeTrue(refused.isEmpty(), () -> "a time namespace with offsets cannot be made here ("
                + how() + "): " + refused.orElse(""));
    }

    private static Optional<String> probe() {
        List<String> cmd = new ArrayList<>(prefix(1, 1));
        cmd.add("/bin/true");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("unshare did not finish in 60 s");
            }
            return p.exitValue() == 0 ? Optional.empty()
                    : Optional.of(out.isEmpty() ? "unshare exited " + p.exitValue() : out.replace('\n', ' '));
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }

    private static boolean hostCapable() {
        return mayUseHostUserNamespace(HostSteering.procSelfStatus());
    }
}
