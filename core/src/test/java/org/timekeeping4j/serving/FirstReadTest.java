package org.timekeeping4j.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.config.Configuration;

/**
 * What a cold JVM's first read does on the caller's thread: it loads only the classes that serve it (each costs a
 * cold JVM a few hundred microseconds, docs/PERFORMANCE.md), and leaves discovery to its own thread. Asserted on
 * the classes a child JVM's main thread loads (-Xlog:class+load with the loading thread's id), not on times.
 */
class FirstReadTest {

    /** The child: names its thread, then makes one first read ({@code nanos} or {@code reader}). */
    public static void main(String[] args) throws IOException {
        String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        System.out.println("tid=" + tid);
        long v = switch (args[0]) {
            case "reader" -> Clocks.reader(ClockId.MONOTONIC).nanos();
            case "boottime" -> Clocks.nanos(ClockId.BOOTTIME);
            default -> Clocks.nanos(ClockId.MONOTONIC);
        };
        System.out.println("value=" + v);
        if (args[0].equals("boottime")) { // the discovery it started, to its end (a daemon: exit would cut it off)
            System.out.println("settled=" + Clocks.awaitExactMode(java.time.Duration.ofSeconds(60)));
        }
    }

    @Test
    void theFirstReadLoadsOnlyClocksFastPathAndTheClockIdOnTheCallersThread(@TempDir Path dir) throws Exception {
        assertThat(libraryClassesOfMain(dir, "nanos"))
                .containsExactlyInAnyOrder("org.timekeeping4j.ClockId", "org.timekeeping4j.Clocks",
                        "org.timekeeping4j.serving.FastPath");
    }

    @Test
    void aBoundReadersFirstReadLoadsOnlyItsOwnReaderBesides(@TempDir Path dir) throws Exception {
        assertThat(libraryClassesOfMain(dir, "reader"))
                .containsExactlyInAnyOrder("org.timekeeping4j.ClockId", "org.timekeeping4j.Clocks",
                        "org.timekeeping4j.ClockReader", "org.timekeeping4j.Clocks$MonotonicReader",
                        "org.timekeeping4j.serving.FastPath");
    }

    /**
     * A first read of a clock the JDK does not serve runs the JDK's FFM start-up for its own handle, and only then
     * starts the discovery, whose own start-up would otherwise run beside it: the first downcall stub the JVM spins
     * is the main thread's, and the discovery thread loads its first class after it.
     */
    @Test
    void aFirstReadOfBoottimeLinksItsHandleBeforeTheDiscoveryBegins(@TempDir Path dir) throws Exception {
        Result r = child(dir, "boottime");
        assertThat(r.exit).as(r.out).isZero();
        String tid = r.out.lines().filter(l -> l.startsWith("tid=")).findFirst().orElseThrow().substring(4);
        List<String> lines = Files.readAllLines(r.log);
        int stub = -1;
        int discovery = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (stub < 0 && line.contains(" jdk.internal.foreign.abi.DowncallStub/")) {
                stub = i;
                assertThat(line).as("the first downcall stub's loader").startsWith("[" + tid + "]");
            }
            if (discovery < 0 && line.contains(" org.timekeeping4j.serving.Handover ")) {
                discovery = i;
            }
        }
        assertThat(stub).as("a downcall stub spun, in %s", r.log).isNotNegative();
        assertThat(discovery).as("the discovery began, in %s", r.log).isNotNegative();
        assertThat(discovery).as("the discovery's first class, after the read's stub (line %d)", stub)
                .isGreaterThan(stub);
    }

    /** Where a property is set the first read parses the configuration itself: a bad value is warned of at once. */
    @Test
    void aSetPropertyIsParsedOnTheFirstReadAndABadValueIsWarnedOf(@TempDir Path dir) throws Exception {
        assertThat(libraryClassesOfMain(dir, "nanos", "-Dtimekeeping4j.discovery=background"))
                .contains("org.timekeeping4j.config.Configuration");
        Result bad = child(dir, "nanos", "-Dtimekeeping4j.vdso=sometimes");
        assertThat(bad.exit).as(bad.out).isZero();
        assertThat(bad.out).contains("value=").doesNotContain("Exception");
        assertThat(bad.out.lines().filter(l -> l.startsWith("timekeeping4j: unknown timekeeping4j.vdso=sometimes:")
                && l.endsWith("; using auto"))).hasSize(1);
    }

    /** The names FastPath checks before it loads Configuration are every property Configuration reads. */
    @Test
    void fastPathChecksEveryPropertyTheConfigurationReads() throws IllegalAccessException {
        Set<String> declared = new TreeSet<>();
        for (Field f : Configuration.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class
                    && ((String) f.get(null)).startsWith("timekeeping4j.")) {
                declared.add((String) f.get(null));
            }
        }
        assertThat(declared).hasSize(9);
        assertThat(FastPath.PROPERTIES).containsExactlyInAnyOrderElementsOf(declared);
    }

    private record Result(int exit, String out, Path log) {}

    /** The library's classes the child's main thread loaded. */
    private static List<String> libraryClassesOfMain(Path dir, String call, String... jvm) throws Exception {
        Result r = child(dir, call, jvm);
        assertThat(r.exit).as(r.out).isZero();
        assertThat(r.out).contains("value=");
        String tid = r.out.lines().filter(l -> l.startsWith("tid=")).findFirst().orElseThrow().substring(4);
        List<String> loaded = new ArrayList<>();
        for (String line : Files.readAllLines(r.log)) {
            // [tid] name source: ...
            if (!line.startsWith("[" + tid + "]")) {
                continue;
            }
            String name = line.substring(line.indexOf(']') + 1).trim().split(" ")[0];
            if (name.startsWith("org.timekeeping4j.") && !name.equals(FirstReadTest.class.getName())) {
                loaded.add(name);
            }
        }
        assertThat(loaded).as("the main thread's log lines, tid %s, in %s", tid, r.log).isNotEmpty();
        return loaded;
    }

    private static Result child(Path dir, String call, String... jvm) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "classes", ".log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xlog:class+load=info:file=" + log + ":tid"));
        cmd.addAll(Arrays.asList(jvm));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), FirstReadTest.class.getName(), call));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out, log);
    }
}
