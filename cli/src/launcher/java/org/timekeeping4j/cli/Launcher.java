package org.timekeeping4j.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The jar's Main-Class: compiled for Java 8 (class file version 52) so that any java can load it. On Java 25 or
 * later it hands over to {@link Tk4j}; on an older one it prints one line, that tk4j needs Java 25 and where it
 * looked for one (the places {@code ./tk4j} looks), and exits 2, instead of an UnsupportedClassVersionError.
 *
 * <p>The benchmark jars are launched by the same class (their builds compile this source too): their manifest's
 * {@code Launcher-Main-Class} names the class to hand over to (JMH's or jcstress's main) and {@code Launcher-Name}
 * the name the line starts with, so that {@code java -jar benchmarks.jar} on an older java fails with that line
 * and exit 2 rather than printing an UnsupportedClassVersionError per benchmark and exiting 0.
 *
 * <p>Java 8 API only here: no var, no List.of, no Runtime.version().
 */
public final class Launcher {

    /** The Java feature release tk4j is compiled for. */
    static final int REQUIRED = 25;
    /** The exit code when the java is too old: the same as {@code ./tk4j}'s when it finds no JDK 25. */
    static final int EXIT_WRONG_JAVA = 2;

    private Launcher() {}

    public static void main(String[] args) throws Throwable {
        int feature = feature(System.getProperty("java.specification.version"));
        String name = attribute("Launcher-Name", "tk4j");
        if (feature < REQUIRED) {
            System.err.println(message(name, feature, System.getProperty("java.home"), candidates(), args));
            System.exit(EXIT_WRONG_JAVA);
        }
        // Loaded only now: Tk4j's class file (version 69) would not load on an older java.
        MethodHandle main = MethodHandles.publicLookup().findStatic(
                Class.forName(attribute("Launcher-Main-Class", "org.timekeeping4j.cli.Tk4j")),
                "main", MethodType.methodType(void.class, String[].class));
        main.invokeExact(args);
    }

    /** An attribute of this jar's manifest, or {@code otherwise} (no jar, no manifest, no such attribute). */
    static String attribute(String key, String otherwise) {
        File jar = codeSource();
        if (jar == null) {
            return otherwise;
        }
        try (JarFile f = new JarFile(jar)) {
            Manifest m = f.getManifest();
            String v = m == null ? null : m.getMainAttributes().getValue(key);
            return v == null || v.isEmpty() ? otherwise : v;
        } catch (IOException e) {
            return otherwise;
        }
    }

    static String message(int feature, String javaHome, List<File> candidates, String[] args) {
        return message("tk4j", feature, javaHome, candidates, args);
    }

    /** "1.8" -> 8, "17" -> 17; 0 when unreadable (treated as too old). */
    static int feature(String specVersion) {
        if (specVersion == null) {
            return 0;
        }
        String v = specVersion.startsWith("1.") ? specVersion.substring(2) : specVersion;
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(v.substring(0, end));
    }

    /**
     * The one line: what is needed, what ran, and where a suitable java was found or looked for, with the command
     * to run instead: the same arguments, quoted for a POSIX shell.
     */
    static String message(String name, int feature, String javaHome, List<File> candidates, String[] args) {
        StringBuilder sb = new StringBuilder(name + ": needs Java " + REQUIRED + " or later, this is Java " + feature
                + " (" + javaHome + ")");
        for (File home : candidates) {
            if (feature(releaseVersion(home)) >= REQUIRED) {
                return sb.append("; found Java ").append(feature(releaseVersion(home))).append(" at ").append(home)
                        .append(": run ").append(new File(new File(home, "bin"), "java")).append(" -jar ")
                        .append(jar()).append(arguments(args)).toString();
            }
        }
        sb.append("; none found in JAVA_HOME, the java on PATH, /usr/lib/jvm, /opt/java, /usr/local, ~/.jdks, "
                + "~/.sdkman/candidates/java: install one (e.g. Temurin 25) and run its bin/java -jar ").append(jar())
                .append(arguments(args));
        return sb.toString();
    }

    /** " verify -t 1 'a b'": each argument after a blank, quoted where a shell would split or expand it. */
    static String arguments(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) {
            sb.append(' ').append(a.matches("[A-Za-z0-9_@%+=:,./-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return sb.toString();
    }

    /** JDK homes in the places ./tk4j and maven-toolchains look. */
    static List<File> candidates() {
        List<File> homes = new ArrayList<File>();
        add(homes, System.getenv("TK4J_JAVA_HOME"));
        add(homes, System.getenv("JAVA_HOME"));
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                File java = new File(dir, "java");
                if (java.isFile()) {
                    try {
                        homes.add(java.getCanonicalFile().getParentFile().getParentFile());
                    } catch (IOException | NullPointerException e) {
                        // an unreadable link: not a candidate
                    }
                }
            }
        }
        String home = System.getProperty("user.home");
        for (String dir : new String[] {"/usr/lib/jvm", "/opt/java", "/usr/local", home + "/.jdks",
                home + "/.sdkman/candidates/java"}) {
            File[] children = new File(dir).listFiles();
            if (children != null) {
                Arrays.sort(children);
                homes.addAll(Arrays.asList(children));
            }
        }
        return homes;
    }

    private static void add(List<File> homes, String dir) {
        if (dir != null && !dir.isEmpty()) {
            homes.add(new File(dir));
        }
    }

    /** JAVA_VERSION from a JDK home's release file, or null. */
    static String releaseVersion(File home) {
        File release = new File(home, "release");
        if (!release.isFile() || !new File(new File(home, "bin"), "java").isFile()) {
            return null;
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(release),
                StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("JAVA_VERSION=")) {
                    return line.substring("JAVA_VERSION=".length()).replace("\"", "").trim();
                }
            }
        } catch (IOException e) {
            // unreadable: not a candidate
        }
        return null;
    }

    /** This jar's path, for the command to suggest. */
    private static String jar() {
        File f = codeSource();
        return f != null ? f.getPath() : "tk4j.jar";
    }

    /** The jar this class was loaded from, or null (loaded from a directory, or by a loader without a source). */
    private static File codeSource() {
        try {
            File f = new File(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return f.isFile() ? f : null;
        } catch (Exception e) { // no code source (a custom loader)
            return null;
        }
    }
}
