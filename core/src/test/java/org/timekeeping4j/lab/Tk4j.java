package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the CLI (the jar named by the system property {@code timekeeping4j.lab.tk4j}, which scripts/lab/uml-suite.sh
 * sets) as a child process of the test's own java, output and errors captured.
 */
final class Tk4j {

    private Tk4j() {}

    /** One finished run. */
    record Run(List<String> command, int exit, String out, String err) {
        void assertPassed() {
            assertThat(exit).as("exit of %s%nstdout:%n%s%nstderr:%n%s", String.join(" ", command), out, err)
                    .isZero();
        }
    }

    static Path jar() {
        String jar = System.getProperty("timekeeping4j.lab.tk4j");
        assertThat(jar).as("system property timekeeping4j.lab.tk4j (the CLI jar; scripts/lab/uml-suite.sh sets it)")
                .isNotNull();
        assertThat(Path.of(jar)).as("the CLI jar").isRegularFile();
        return Path.of(jar);
    }

    /** Starts {@code tk4j ARGS...}; {@link #finish} collects it. */
    static Process start(String... args) throws IOException {
        List<String> cmd = command(args);
        Path out = Files.createTempFile("tk4j-out", ".txt");
        Path err = Files.createTempFile("tk4j-err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("COLUMNS", "200"); // the tests parse whole lines: a wide terminal's, unfolded
        Process p = pb.start();
        STARTED.put(p, new Started(cmd, out, err));
        return p;
    }

    private record Started(List<String> command, Path out, Path err) {}

    private static final java.util.Map<Process, Started> STARTED = new java.util.concurrent.ConcurrentHashMap<>();

    static Run finish(Process p, long timeoutSeconds) throws Exception {
        Started s = STARTED.remove(p);
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", s.command()) + " did not end within " + timeoutSeconds
                    + " s; output:\n" + Files.readString(s.out()));
        }
        Run r = new Run(s.command(), p.exitValue(), Files.readString(s.out(), StandardCharsets.UTF_8),
                Files.readString(s.err(), StandardCharsets.UTF_8));
        Files.delete(s.out());
        Files.delete(s.err());
        System.out.println("--- " + String.join(" ", r.command()) + " (exit " + r.exit() + ")\n" + r.out() + r.err());
        return r;
    }

    /** Runs {@code tk4j ARGS...} to its end (at most 120 s). */
    static Run run(String... args) throws Exception {
        return finish(start(args), 120);
    }

    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-jar");
        cmd.add(jar().toString());
        cmd.addAll(List.of(args));
        return cmd;
    }
}
