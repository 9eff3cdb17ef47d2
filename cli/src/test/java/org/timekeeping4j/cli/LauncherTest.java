package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jar's Main-Class on an old java prints one line (needs Java 25, and where one is) and exits 2, instead of an
 * UnsupportedClassVersionError; on Java 25 it runs tk4j.
 */
class LauncherTest {

    private static final Path CLASSES = Path.of("target", "classes").toAbsolutePath();

    /** A JDK older than 25 among the usual install places (this machine has JDK 17 in /usr/lib/jvm). */
    private static Optional<Path> oldJava() throws IOException {
        Path jvm = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvm)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvm)) {
            return homes.filter(h -> {
                int f = Launcher.feature(Launcher.releaseVersion(h.toFile()));
                return f >= 8 && f < Launcher.REQUIRED;
            }).map(h -> h.resolve("bin/java")).sorted().findFirst();
        }
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(Path java, String classPath, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-cp", classPath, "org.timekeeping4j.cli.Launcher"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void anOldJavaGetsOneLineNamingJava25() throws Exception {
        Optional<Path> old = oldJava();
        assumeTrue(old.isPresent(), "no JDK older than 25 in /usr/lib/jvm to run the launcher with");
        Run r = run(old.get(), CLASSES.toString(), "bench", "-c", "MONOTONIC");
        assertThat(r.exit()).as(r.err()).isEqualTo(Launcher.EXIT_WRONG_JAVA);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("tk4j: needs Java 25 or later, this is Java ")
                .doesNotContain("UnsupportedClassVersionError")
                .containsPattern("found Java \\d+ at .*: run .*bin/java -jar |none found in JAVA_HOME")
                .endsWith(" bench -c MONOTONIC" + System.lineSeparator());
    }

    @Test
    void java25RunsTk4jThroughTheLauncher() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String cp = System.getProperty("java.class.path");
        Run r = run(java, CLASSES + File.pathSeparator + cp, "--version");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("tk4j ");
    }

    @Test
    void theLauncherIsJava8BytecodeAndTheJarsMainClass() throws Exception {
        byte[] header = Files.readAllBytes(CLASSES.resolve("org/timekeeping4j/cli/Launcher.class"));
        int major = ((header[6] & 0xff) << 8) | (header[7] & 0xff);
        assertThat(major).isEqualTo(52);
        assertThat(Files.readString(Path.of("pom.xml"))).contains("<Main-Class>org.timekeeping4j.cli.Launcher</Main-Class>");
        assertThat(Launcher.feature("1.8")).isEqualTo(8);
        assertThat(Launcher.feature("17")).isEqualTo(17);
        assertThat(Launcher.feature("25.0.1")).isEqualTo(25);
        assertThat(Launcher.message(17, "/jdk17", List.of(), new String[0])).contains("none found in").hasLineCount(1);
    }

    @Test
    void theSuggestedCommandKeepsTheUsersArguments() {
        String line = Launcher.message(17, "/jdk17", List.of(), new String[] {"verify", "-t", "1", "a b", "it's"});
        assertThat(line).hasLineCount(1).endsWith(" -jar tk4j.jar verify -t 1 'a b' 'it'\\''s'");
    }
}
