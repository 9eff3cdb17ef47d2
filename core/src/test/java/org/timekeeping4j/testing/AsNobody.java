package org.timekeeping4j.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A child JVM that runs as nobody (setpriv drops root), as a user without privileges would run the library. Its
 * class path keeps only the build's own target folders: nobody cannot read the test libraries in root's Maven
 * repository, so the child's main may use the library and the JDK alone.
 */
public final class AsNobody {

    /** What drops root; a test that needs it assumes it is executable. */
    public static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    private AsNobody() {}

    /**
     * The command that runs {@code main} with {@code args} as nobody, in this JVM's java, with native access.
     *
     * @param main the child's main class, from core's classes or test classes
     * @param args its arguments
     * @return the command, setpriv first (a caller may put a wrapper such as prlimit before it)
     */
    public static List<String> java(Class<?> main, String... args) {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .filter(e -> e.contains("/target/")).reduce((a, b) -> a + ":" + b).orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(SETPRIV.toString(), "--reuid=65534", "--regid=65534",
                "--clear-groups", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:-UsePerfData", "-cp", classPath, main.getName()));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }
}
