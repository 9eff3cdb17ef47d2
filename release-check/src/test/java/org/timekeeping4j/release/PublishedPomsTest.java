package org.timekeeping4j.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.release.Reactor.Pom;
import org.w3c.dom.Element;

/**
 * What Maven Central requires of every POM it is given (name, description, url, licenses, developers, scm),
 * checked on the POM files as the reactor would deploy them, plus the BOM and the deploy plan.
 */
class PublishedPomsTest {

    /** Deployed: the parent (every published module's POM names it), the BOM, core, the CLI, the adapters and the test clocks. */
    private static final Set<String> PUBLISHED = Set.of("timekeeping4j-parent", "timekeeping4j-bom",
            "timekeeping4j-core", "timekeeping4j-cli", "timekeeping4j-opentelemetry", "timekeeping4j-micrometer",
            "timekeeping4j-log4j", "timekeeping4j-agrona", "timekeeping4j-caffeine", "timekeeping4j-guava",
            "timekeeping4j-test-clocks");

    /** Built but never deployed: the jcstress tests, the JMH benchmarks and this check. */
    private static final Set<String> NOT_PUBLISHED = Set.of("timekeeping4j-stress", "timekeeping4j-benchmarks",
            "timekeeping4j-release-check", "timekeeping4j-simulation");

    @Test
    void shouldDeployExactlyTheLibraryTheCliTheAdaptersAndTheBom() {
        Set<String> published = new TreeSet<>();
        Set<String> skipped = new TreeSet<>();
        published.add(Reactor.root().artifactId());
        for (Pom p : Reactor.modules()) {
            (p.isPublished() ? published : skipped).add(p.artifactId());
        }
        assertThat(published).containsExactlyInAnyOrderElementsOf(PUBLISHED);
        assertThat(skipped).containsExactlyInAnyOrderElementsOf(NOT_PUBLISHED);
        // The JMH adapter benchmarks live in the jmh profile, outside the default module list: not deployed either.
        Pom adapterBenchmarks = new Pom(Reactor.ROOT.resolve("adapters/benchmarks"),
                Reactor.read(Reactor.ROOT.resolve("adapters/benchmarks/pom.xml")), Reactor.root().project());
        assertThat(adapterBenchmarks.isPublished()).as("adapters/benchmarks deployed").isFalse();
    }

    @Test
    void shouldCarryCentralsRequiredMetadataInEveryPublishedPom() {
        List<String> missing = new ArrayList<>();
        for (Pom p : published()) {
            String who = p.artifactId();
            // name and description: each module's own (inherited ones would describe the parent).
            requireOwn(p, "name", missing);
            requireOwn(p, "description", missing);
            for (String path : List.of("url", "licenses/license/name", "licenses/license/url",
                    "developers/developer/name", "scm/url", "scm/connection", "scm/developerConnection")) {
                if (p.inherited(path).isEmpty()) {
                    missing.add(who + ": " + path);
                }
            }
            if (!p.inherited("groupId").orElse(Reactor.text(p.project(), "parent/groupId").orElse(""))
                    .equals(Reactor.GROUP_ID)) {
                missing.add(who + ": groupId is not " + Reactor.GROUP_ID);
            }
        }
        assertThat(missing).as("missing metadata").isEmpty();
    }

    @Test
    void shouldLicenseEverythingUnderApache2WithTheLicenceTextAtTheRoot() throws IOException {
        for (Pom p : published()) {
            assertThat(p.inherited("licenses/license/name")).as(p.artifactId()).contains("Apache-2.0");
        }
        String license = Files.readString(Reactor.ROOT.resolve("LICENSE"));
        assertThat(license).contains("Apache License").contains("Version 2.0, January 2004")
                .contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    }

    @Test
    void shouldGiveTheBomTheReactorsCoordinatesAndMetadata() {
        Pom bom = Reactor.module("timekeeping4j-bom");
        Pom root = Reactor.root();
        assertThat(bom.parent()).as("the BOM has no parent (its dependencyManagement is all a user imports)")
                .isNull();
        assertThat(Reactor.text(bom.project(), "groupId")).contains(Reactor.GROUP_ID);
        assertThat(Reactor.text(bom.project(), "version")).contains(Reactor.VERSION);
        assertThat(bom.packaging()).isEqualTo("pom");
        for (String path : List.of("url", "licenses/license/name", "licenses/license/url", "scm/url",
                "scm/connection", "developers/developer/name")) {
            assertThat(Reactor.text(bom.project(), path)).as("BOM " + path).isEqualTo(root.inherited(path));
        }
    }

    @Test
    void shouldListEveryPublishedJarInTheBomAndNothingElse() {
        Pom bom = Reactor.module("timekeeping4j-bom");
        Set<String> listed = new TreeSet<>();
        Element managed = Reactor.child(bom.project(), "dependencyManagement").flatMap(
                d -> Reactor.child(d, "dependencies")).orElseThrow();
        for (Element d : Reactor.children(managed, "dependency")) {
            assertThat(Reactor.text(d, "groupId")).contains(Reactor.GROUP_ID);
            assertThat(Reactor.text(d, "version")).contains("${project.version}");
            assertThat(Reactor.text(d, "scope")).as("scope of " + Reactor.text(d, "artifactId")).isEmpty();
            listed.add(Reactor.text(d, "artifactId").orElseThrow());
        }
        Set<String> jars = new TreeSet<>();
        for (Pom p : Reactor.modules()) {
            if (p.isPublished() && p.packaging().equals("jar")) {
                jars.add(p.artifactId());
            }
        }
        assertThat(jars).contains("timekeeping4j-core", "timekeeping4j-cli", "timekeeping4j-caffeine",
                "timekeeping4j-guava");
        assertThat(listed).containsExactlyInAnyOrderElementsOf(jars);
    }

    @Test
    void shouldPinTheOutputTimestampForReproducibleBuilds() {
        String timestamp = Reactor.root().property("project.build.outputTimestamp").orElseThrow(
                () -> new AssertionError("project.build.outputTimestamp is not set in the root POM"));
        assertThat(Instant.parse(timestamp)).isAfter(Instant.parse("2026-01-01T00:00:00Z"));
        for (Pom p : Reactor.modules()) {
            assertThat(Reactor.text(p.project(), "properties/project.build.outputTimestamp"))
                    .as(p.artifactId() + " overrides the timestamp").isEmpty();
        }
    }

    private static void requireOwn(Pom p, String element, List<String> missing) {
        if (Reactor.text(p.project(), element).isEmpty()) {
            missing.add(p.artifactId() + ": own " + element);
        }
    }

    private static List<Pom> published() {
        return Stream.concat(Stream.of(Reactor.root()), Reactor.modules().stream().filter(Pom::isPublished))
                .toList();
    }
}
