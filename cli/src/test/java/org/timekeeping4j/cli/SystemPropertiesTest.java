package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The library's system properties, in a JVM of their own (they are read once per process). */
class SystemPropertiesTest {

    private record Run(int exit, String out, String err) {}

    private static Run tk4j(String property, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", property, "-cp", System.getProperty("java.class.path"),
                "org.timekeeping4j.cli.Tk4j"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** An unknown execmem value is an error, like an unknown counter mode (it used to mean "allow"). */
    @Test
    void anUnknownExecmemValueIsAnErrorLikeAnUnknownCounterMode() throws Exception {
        Run execmem = tk4j("-Dtimekeeping4j.execmem=maybe", "info");
        Run counter = tk4j("-Dtimekeeping4j.counter=maybe", "info");
        assertThat(counter.exit()).as(counter.err()).isNotZero();
        assertThat(execmem.exit()).as(execmem.err()).isEqualTo(counter.exit());
        assertThat(execmem.err()).isEqualTo("tk4j: timekeeping4j.execmem=maybe is not an execmem mode; use one of "
                + "allow, deny" + System.lineSeparator());
    }

    /** counter=kernel is the user's choice: info says chosen and what ticks are then; capture says why it has nothing to do. */
    @Test
    void theKernelCounterModeIsReportedAsAChoice() throws Exception {
        Run info = tk4j("-Dtimekeeping4j.counter=kernel", "info");
        assertThat(info.exit()).as(info.err()).isZero();
        assertThat(info.out().replaceAll("\\R {4,}", " ")).contains("the kernel's clocks, as chosen "
                + "(timekeeping4j.counter=kernel)").contains("ticks         MONOTONIC_RAW nanoseconds, read with "
                + "clock_gettime(CLOCK_MONOTONIC_RAW)").doesNotContain("rejected");
        Run capture = tk4j("-Dtimekeeping4j.counter=kernel", "capture", "-n", "1000");
        assertThat(capture.exit()).isEqualTo(Tk4j.EXIT_SKIPPED);
        assertThat(capture.out().replaceAll("\\R {2,}", " ")).contains("ticks are MONOTONIC_RAW nanoseconds here")
                .contains("(timekeeping4j.counter=kernel)").doesNotContain("no trusted");
    }
}
