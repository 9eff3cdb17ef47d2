package org.timekeeping4j.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.release.Reactor.Pom;

/**
 * The CLI as published (the self-contained jar a user runs with {@code java -jar}) and as a module: its thin
 * jar on the module path next to core's, where the JVM enforces core's exports, so a CLI class that reached a
 * package core does not export to it fails here.
 */
class CliJarTest {

    private static final String CLI_MODULE = "org.timekeeping4j.cli";
    private static final String CORE_MODULE = "org.timekeeping4j";

    @Test
    void shouldRunThePublishedJarWithJavaDashJar() throws Exception {
        Pom cli = Reactor.module("timekeeping4j-cli");
        Path jar = cli.jar("");
        try (JarFile j = new JarFile(jar.toFile())) {
            assertThat(j.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("org.timekeeping4j.cli.Launcher"); // Java 8 bytecode: says "needs Java 25" on older JVMs
            assertThat(j.getEntry("module-info.class")).as("a class-path jar carries no descriptor").isNull();
        }
        Result r = run(List.of(java(), "-jar", jar.toString(), "--version"));
        assertThat(r.exit).as(r.toString()).isZero();
        assertThat(r.out).startsWith("tk4j " + Reactor.VERSION);
    }

    @Test
    void shouldDeployADependencyReducedPomForTheSelfContainedJar() {
        Pom cli = Reactor.module("timekeeping4j-cli");
        org.w3c.dom.Element drp = Reactor.read(cli.dir().resolve("target/dependency-reduced-pom.xml"));
        assertThat(Reactor.text(drp, "artifactId")).contains("timekeeping4j-cli");
        List<String> runtime = new ArrayList<>();
        Reactor.child(drp, "dependencies").ifPresent(deps -> {
            for (org.w3c.dom.Element d : Reactor.children(deps, "dependency")) {
                String scope = Reactor.text(d, "scope").orElse("compile");
                if (!scope.equals("test") && !scope.equals("provided")) {
                    runtime.add(Reactor.text(d, "artifactId").orElseThrow() + ":" + scope);
                }
            }
        });
        // core, picocli and HdrHistogram are inside the jar: a user of the artifact must not get them twice.
        assertThat(runtime).as("runtime dependencies of the published CLI").isEmpty();
    }

    @Test
    void shouldExportInternalsOnlyToTheCliAndTheSimulationModule() {
        ModuleDescriptor core = descriptor(Reactor.module("timekeeping4j-core").jar(""), CORE_MODULE);
        Map<String, String> qualified = new TreeMap<>();
        core.exports().stream().filter(ModuleDescriptor.Exports::isQualified).forEach(
                e -> qualified.put(e.source(), String.join(",", new java.util.TreeSet<>(e.targets()))));
        String simulation = "org.timekeeping4j.simulation";
        assertThat(qualified).containsExactlyInAnyOrderEntriesOf(Map.of(
                "org.timekeeping4j.linux", CLI_MODULE + "," + simulation,
                "org.timekeeping4j.adjust", simulation, "org.timekeeping4j.arch", simulation,
                "org.timekeeping4j.clocksource", simulation, "org.timekeeping4j.config", CLI_MODULE + "," + simulation,
                "org.timekeeping4j.machine", simulation, "org.timekeeping4j.timekeeper", simulation));

        ModuleDescriptor cli = descriptor(thinCliJar(), CLI_MODULE);
        assertThat(cli.exports()).as("the CLI exports nothing").isEmpty();
        assertThat(cli.requires().stream().map(ModuleDescriptor.Requires::name)).contains(CORE_MODULE);
    }

    @Test
    void shouldRunTheCliOnTheModulePathWhereCoresExportsAreEnforced() throws Exception {
        String modulePath = String.join(File.pathSeparator, Reactor.module("timekeeping4j-core").jar("").toString(),
                Reactor.module("timekeeping4j-simulation").jar("").toString(), thinCliJar().toString(),
                classPathJar("picocli-"), classPathJar("HdrHistogram-"));
        // info reads the raw bindings (org.timekeeping4j.linux) and, on a slow clocksource, the counter's cost
        // through the simulation module; capture the library's ticks; verify skew drives the simulation module's
        // timekeeper over core's (org.timekeeping4j.timekeeper, clocksource, adjust): the qualified exports.
        for (List<String> args : List.of(List.of("info"), List.of("capture", "--iterations", "1000"),
                List.of("verify", "skew", "--duration", "1", "--threads", "1", "--clock", "MONOTONIC"))) {
            List<String> command = new ArrayList<>(List.of(java(), "--enable-native-access=" + CORE_MODULE,
                    "--module-path", modulePath, "--add-modules", "org.timekeeping4j.simulation",
                    "--add-reads", CLI_MODULE + "=org.timekeeping4j.simulation",
                    "--module", CLI_MODULE + "/org.timekeeping4j.cli.Tk4j"));
            command.addAll(args);
            Result r = run(command);
            assertThat(r.err).as(String.join(" ", args)).doesNotContain("IllegalAccessError")
                    .doesNotContain("does not export");
            // capture reads the library's ticks; where they are not counter cycles it says so and skips (3).
            assertThat(r.exit).as(r.toString()).isIn(args.get(0).equals("capture") ? List.of(0, 3) : List.of(0));
        }
    }

    private static Path thinCliJar() {
        Pom cli = Reactor.module("timekeeping4j-cli");
        return cli.dir().resolve("target").resolve("original-" + cli.finalName() + ".jar");
    }

    private static ModuleDescriptor descriptor(Path jar, String expectedName) {
        ModuleReference ref = ModuleFinder.of(jar).findAll().stream().findFirst().orElseThrow(
                () -> new AssertionError("no module in " + jar));
        ModuleDescriptor d = ref.descriptor();
        assertThat(d.isAutomatic()).as(jar + " is an explicit module").isFalse();
        assertThat(d.name()).isEqualTo(expectedName);
        return d;
    }

    /** A jar of this test's class path (its Maven dependencies), by file-name prefix. */
    private static String classPathJar(String prefix) {
        List<String> found = List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
                .filter(e -> Path.of(e).getFileName().toString().startsWith(prefix) && e.endsWith(".jar"))
                .collect(Collectors.toList());
        assertThat(found).as("class path jar " + prefix + "*").hasSize(1);
        return found.get(0);
    }

    /** The java launcher of the JVM running this test (the toolchain's JDK 25). */
    private static String java() {
        return ProcessHandle.current().info().command().orElseThrow();
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        // Both streams are small (a few KB); read them on this thread after exit would risk a full pipe, so
        // read stdout here and stderr through a second reader thread.
        StringBuilder err = new StringBuilder();
        Thread errReader = Thread.ofPlatform().start(() -> {
            try {
                err.append(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                err.append(e);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        errReader.join();
        return new Result(p.exitValue(), out, err.toString());
    }
}
