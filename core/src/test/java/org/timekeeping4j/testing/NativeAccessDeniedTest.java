package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * A JVM that denies native access (--illegal-native-access=deny, no --enable-native-access): MONOTONIC and
 * REALTIME are served by the JDK (inside brackets of System.nanoTime and Instant.now), stderr says once what to
 * add, and every other clock refuses with that one line. On the class path and on the module path (this class's
 * package is not the library's, so it can run beside the library as a named module).
 */
class NativeAccessDeniedTest {

    /** Run in the child JVM: the reads, then what happened, one line each on stdout. */
    public static void main(String[] args) {
        long before = System.nanoTime();
        long mono = Clocks.nanos(ClockId.MONOTONIC);
        long after = System.nanoTime();
        System.out.println("monotonic " + (before <= mono && mono <= after ? "inside" : "outside"));
        Instant b = Instant.now();
        long real = Clocks.nanos(ClockId.REALTIME);
        Instant a = Instant.now();
        System.out.println("realtime " + (nanos(b) <= real && real <= nanos(a) ? "inside" : "outside"));
        System.out.println("fast path " + Clocks.awaitExactMode(Duration.ofSeconds(30)));
        before = System.nanoTime();
        mono = Clocks.nanos(ClockId.MONOTONIC); // after discovery gave up: still the JDK's
        after = System.nanoTime();
        System.out.println("monotonic after discovery " + (before <= mono && mono <= after ? "inside" : "outside"));
        try {
            System.out.println("boottime read " + Clocks.nanos(ClockId.BOOTTIME));
        } catch (RuntimeException | Error e) {
            System.out.println("boottime " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static long nanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void onTheClassPathTheJdksClocksShouldServeAndTheOthersSayWhatToAdd() throws Exception {
        List<String> out = run(List.of("-cp", System.getProperty("java.class.path")));
        check(out, "--enable-native-access=ALL-UNNAMED");
    }

    @Test
    void onTheModulePathTheJdksClocksShouldServeAndTheOthersSayWhatToAdd() throws Exception {
        String library = location(Clocks.class);
        String tests = location(NativeAccessDeniedTest.class);
        List<String> classPath = new ArrayList<>(List.of(tests));
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (!e.equals(library) && !e.equals(tests)) {
                classPath.add(e);
            }
        }
        List<String> out = run(List.of("--module-path", library, "--add-modules", "org.timekeeping4j",
                "-cp", String.join(java.io.File.pathSeparator, classPath)));
        check(out, "--enable-native-access=org.timekeeping4j");
    }

    private static void check(List<String> out, String flag) {
        assertThat(out).contains("monotonic inside", "realtime inside", "fast path false",
                "monotonic after discovery inside");
        assertThat(out).filteredOn(l -> l.startsWith("boottime")).singleElement().asString()
                .startsWith("boottime UnsupportedOperationException: timekeeping4j needs native access").contains(flag);
        assertThat(out).filteredOn(l -> l.startsWith("timekeeping4j: ")).singleElement().asString()
                .contains(flag).contains("only MONOTONIC, REALTIME serve (JDK)").hasSizeLessThan(100);
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static List<String> run(List<String> path) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--illegal-native-access=deny"));
        cmd.addAll(path);
        cmd.add(NativeAccessDeniedTest.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines().toList();
    }
}
