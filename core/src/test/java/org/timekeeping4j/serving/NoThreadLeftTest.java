package org.timekeeping4j.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.testing.AsNobody;

/**
 * A process that can start no thread (at its pids limit: a container's pids.max, RLIMIT_NPROC) still reads every
 * clock: the first read, which would start the discovery thread, discovers on its own thread instead, once, and the
 * diagnostics say why. Before, every cold read threw the JVM's OutOfMemoryError ("unable to create native thread").
 *
 * <p>Real, not simulated: a child JVM runs as nobody under a limit of {@value #LIMIT} tasks (prlimit's RLIMIT_NPROC,
 * which root is exempt from, hence setpriv), starts parked threads until the kernel refuses one, then reads
 * ({@link NoThreadLeftChild}).
 * Nothing of the machine changes: the limit is the child's own.
 */
class NoThreadLeftTest {

    /** Tasks nobody may run: the JVM's own (about 20) and room for the child to exhaust. */
    private static final int LIMIT = 64;

    @Test
    void aProcessThatCanStartNoThreadDiscoversOnItsFirstReadersThread() throws Exception {
        String out = child("first");
        assertThat(lines(out)).as(out).contains("monotonic ok", "boottime ok", "realtime ok", "monotonic again ok");
        // Exact mode where this machine has it (the caller discovered it), else the kernel's clocks; settled.
        assertThat(out).as(out).containsPattern("(?m)^(exact true\nstage EXACT|exact false\nstage KERNEL)$")
                .containsPattern("(?m)^why .*; the discovery thread could not be started \\(java\\.lang\\."
                        + "OutOfMemoryError.*\\), so the thread of the first read or wait discovered$");
    }

    @Test
    void aRediscoveryWithoutAThreadLeavesTheKernelsClocksServingAndSettled() throws Exception {
        String out = child("rediscover");
        assertThat(lines(out)).as(out).contains("monotonic ok", "boottime ok", "realtime ok", "monotonic again ok");
        if (lines(out).contains("first discovery: exact true, stage EXACT")) { // else nothing to rediscover
            assertThat(lines(out)).as(out).contains("exact false", "stage KERNEL", "why asked by the test; the"
                    + " kernel's clocks serve: the rediscovery thread could not be started (java.lang.OutOfMemoryError:"
                    + " unable to create native thread: possibly out of memory or process/resource limits reached)");
        } else {
            assertThat(lines(out)).as(out).contains("first discovery: exact false, stage KERNEL", "exact false",
                    "stage KERNEL");
        }
    }

    private static List<String> lines(String out) {
        return out.lines().toList();
    }

    /** Runs {@link NoThreadLeftChild} as nobody under the limit; its output, once it hit the limit and exited 0. */
    private static String child(String mode) throws Exception {
        boolean root = System.getProperty("user.name").equals("root");
        // As another user the limit would count that user's every process, and the child would starve them too.
        assumeThat(root).as("run as root: the child runs as nobody under a limit of its own").isTrue();
        assumeThat(AsNobody.SETPRIV).as("setpriv, to drop root").isExecutable();
        assumeThat(Path.of("/usr/bin/prlimit")).as("prlimit, for the child's limit").isExecutable();
        // prlimit sets RLIMIT_NPROC on the command it runs, setpriv then drops to nobody, whom it binds.
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/prlimit", "--nproc=" + LIMIT));
        cmd.addAll(AsNobody.java(NoThreadLeftChild.class, mode));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        // The limit was reached before the reads: a run that never hit it would prove nothing.
        assertThat(out).as(out).containsPattern("(?m)^refused after [1-9][0-9]* threads: java\\.lang\\."
                + "OutOfMemoryError");
        return out;
    }
}
