package org.timekeeping4j.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.release.Reactor.Pom;

/**
 * The jars each published module deploys, as `mvn package` left them in its target directory: the main jar
 * with its POM inside, a sources jar covering every package of it, a javadoc jar, and entry times pinned to
 * project.build.outputTimestamp.
 */
class PublishedJarsTest {

    @Test
    void shouldBuildMainSourcesAndJavadocJarsForEveryPublishedJarModule() throws IOException {
        List<Pom> jars = publishedJars();
        assertThat(jars).extracting(Pom::artifactId).contains("timekeeping4j-core", "timekeeping4j-cli",
                "timekeeping4j-caffeine", "timekeeping4j-guava");
        for (Pom p : jars) {
            for (String classifier : List.of("", "sources", "javadoc")) {
                Path jar = p.jar(classifier);
                assertThat(jar).as(p.artifactId() + " " + (classifier.isEmpty() ? "main" : classifier) + " jar")
                        .isRegularFile();
            }
            try (ZipFile javadoc = new ZipFile(p.jar("javadoc").toFile())) {
                assertThat(javadoc.getEntry("index.html")).as(p.artifactId() + " javadoc index.html").isNotNull();
            }
        }
    }

    @Test
    void shouldShipTheSourceOfEveryPackageInTheMainJar() throws IOException {
        for (Pom p : publishedJars()) {
            // The CLI's main jar is the shaded one (with its dependencies); its own classes are in original-*.
            Path main = p.artifactId().equals("timekeeping4j-cli")
                    ? p.dir().resolve("target").resolve("original-" + p.finalName() + ".jar") : p.jar("");
            Set<String> classPackages = packagesOf(main, ".class");
            Set<String> sourcePackages = packagesOf(p.jar("sources"), ".java");
            assertThat(classPackages).as(p.artifactId() + " packages").isNotEmpty();
            assertThat(sourcePackages).as(p.artifactId() + " sources").containsAll(classPackages);
        }
    }

    @Test
    void shouldDocumentExactlyTheExportedPackagesOfCore() throws IOException {
        Pom core = Reactor.module("timekeeping4j-core");
        java.lang.module.ModuleDescriptor descriptor = java.lang.module.ModuleFinder.of(core.jar("")).findAll()
                .iterator().next().descriptor();
        Set<String> exported = new TreeSet<>();
        descriptor.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
        Set<String> documented = new TreeSet<>();
        String prefix = descriptor.name() + "/";
        try (ZipFile javadoc = new ZipFile(core.jar("javadoc").toFile())) {
            javadoc.stream().map(ZipEntry::getName)
                    .filter(n -> n.startsWith(prefix) && n.endsWith("/package-summary.html"))
                    .forEach(n -> documented.add(n.substring(prefix.length(), n.lastIndexOf('/')).replace('/', '.')));
            assertThat(javadoc.getEntry(prefix + "module-summary.html")).as("module page").isNotNull();
        }
        assertThat(documented).as("packages in core's javadoc").isEqualTo(exported);
    }

    @Test
    void shouldEmbedTheModulesPomInItsJar() throws IOException {
        for (Pom p : publishedJars()) {
            try (JarFile jar = new JarFile(p.jar("").toFile())) {
                String base = "META-INF/maven/" + Reactor.GROUP_ID + "/" + p.artifactId() + "/";
                assertThat(jar.getEntry(base + "pom.xml")).as(p.artifactId() + " " + base + "pom.xml").isNotNull();
                assertThat(jar.getEntry(base + "pom.properties")).as(p.artifactId() + " pom.properties").isNotNull();
            }
        }
    }

    @Test
    void shouldStampEveryEntryWithTheOutputTimestamp() throws IOException {
        Instant pinned = Instant.parse(Reactor.root().property("project.build.outputTimestamp").orElseThrow());
        List<String> off = new ArrayList<>();
        for (Pom p : publishedJars()) {
            for (String classifier : List.of("", "sources", "javadoc")) {
                try (ZipFile zip = new ZipFile(p.jar(classifier).toFile())) {
                    Enumeration<? extends ZipEntry> entries = zip.entries();
                    while (entries.hasMoreElements()) {
                        ZipEntry e = entries.nextElement();
                        FileTime t = e.getLastModifiedTime();
                        // The shaded CLI jar copies its dependencies' entries with the times their own jars
                        // carry (fixed inputs, so still reproducible); every entry of ours is pinned.
                        if (!isDependencyEntryOfTheShadedCli(p, classifier, e.getName())
                                && !t.toInstant().equals(pinned)) {
                            off.add(p.jar(classifier).getFileName() + "!" + e.getName() + " " + t);
                        }
                    }
                }
            }
        }
        assertThat(off).as("entries not at " + pinned).isEmpty();
    }

    private static boolean isDependencyEntryOfTheShadedCli(Pom p, String classifier, String entry) {
        return p.artifactId().equals("timekeeping4j-cli") && classifier.isEmpty()
                && (entry.startsWith("picocli/") || entry.startsWith("org/HdrHistogram/")
                    || entry.equals("META-INF/LICENSE.txt") || entry.startsWith("META-INF/maven/info.picocli/")
                    || entry.startsWith("META-INF/maven/org.hdrhistogram/"));
    }

    private static List<Pom> publishedJars() {
        return Reactor.modules().stream().filter(p -> p.isPublished() && p.packaging().equals("jar")).toList();
    }

    private static Set<String> packagesOf(Path jar, String suffix) throws IOException {
        Set<String> packages = new TreeSet<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.endsWith(suffix) && name.startsWith("org/") && name.lastIndexOf('/') > 0
                        && !name.endsWith("module-info" + suffix) && !name.endsWith("package-info" + suffix)) {
                    packages.add(name.substring(0, name.lastIndexOf('/')).replace('/', '.'));
                }
            }
        }
        return packages;
    }
}
