package org.timekeeping4j.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A user's modular application against the published core jar: it compiles and runs using the exported API
 * (including values whose classes it reflects on), and it cannot compile against an internal package.
 */
class ModularConsumerTest {

    private static final String MODULE_INFO = """
            module app {
                requires org.timekeeping4j;
            }
            """;

    @Test
    void shouldCompileAndRunAModularAppOnTheExportedApi(@TempDir Path dir) throws Exception {
        Path src = write(dir, "app/Main.java", """
                package app;

                import org.timekeeping4j.ClockId;
                import org.timekeeping4j.Clocks;
                import org.timekeeping4j.Snapshot;
                import org.timekeeping4j.SyncStatus;
                import org.timekeeping4j.device.BoundedClock;
                import org.timekeeping4j.device.TimeBounds;

                public class Main {
                    public static void main(String[] args) {
                        long a = Clocks.nanos(ClockId.MONOTONIC);
                        long b = Clocks.nanos(ClockId.MONOTONIC);
                        SyncStatus status = SyncStatus.read();
                        Snapshot snapshot = new Snapshot();
                        long ticks = Clocks.ticks();
                        TimeBounds bounds;
                        try (BoundedClock adjtimex = BoundedClock.adjtimex()) {
                            bounds = adjtimex.now(new TimeBounds());
                        }
                        // Reflection on every value handed out: a type from an unexported package would fail here.
                        System.out.println(String.join(" ", "monotonic-ok=" + (b >= a),
                                status.getClass().getName(), snapshot.getClass().getName(),
                                bounds.getClass().getName(), bounds.status().getClass().getName(),
                                "converted-ok=" + (Clocks.ticksToNanos(ticks, ClockId.MONOTONIC) > 0)));
                    }
                }
                """);
        write(dir, "module-info.java", MODULE_INFO);
        Path out = dir.resolve("out");
        Compilation c = javac(dir, out, src);
        assertThat(c.exit).as(c.output).isZero();

        Process p = new ProcessBuilder(java(), "--enable-native-access=org.timekeeping4j",
                "--module-path", core() + java.io.File.pathSeparator + out, "--module", "app/app.Main")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("monotonic-ok=true", "org.timekeeping4j.SyncStatus", "org.timekeeping4j.Snapshot",
                "org.timekeeping4j.device.TimeBounds", "org.timekeeping4j.device.TimeBounds$Status", "converted-ok=true");
    }

    @ParameterizedTest
    @CsvSource({"linux, LinuxTime", "clocksource, MultShift", "timekeeper, Timekeeper",
            "adjust, NtpAdjuster"})
    void shouldRefuseToCompileAModularAppThatReachesIntoAnInternalPackage(String pkg, String type,
            @TempDir Path dir) throws Exception {
        Path src = write(dir, "app/Main.java", """
                package app;

                import org.timekeeping4j.%s.%s;

                public class Main {
                    public static void main(String[] args) {
                        System.out.println(%s.class);
                    }
                }
                """.formatted(pkg, type, type));
        write(dir, "module-info.java", MODULE_INFO);
        Compilation c = javac(dir, dir.resolve("out"), src);
        assertThat(c.exit).isNotZero();
        assertThat(c.output).contains("package org.timekeeping4j." + pkg + " is not visible");
    }

    private record Compilation(int exit, String output) {}

    private static Compilation javac(Path dir, Path out, Path src) {
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(
                () -> new AssertionError("no javac in this JDK (the test needs a JDK, not a JRE)"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int exit = javac.run(ps, ps, List.of("-d", out.toString(), "--module-path", core().toString(),
                dir.resolve("module-info.java").toString(), src.toString()).toArray(String[]::new));
        return new Compilation(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    private static Path core() {
        return Reactor.module("timekeeping4j-core").jar("");
    }

    private static Path write(Path dir, String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        return Files.writeString(f, text);
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElseThrow();
    }
}
