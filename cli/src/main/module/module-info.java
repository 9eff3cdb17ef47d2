/**
 * tk4j, the timekeeping4j command line: clock reads, benchmarks, verification and device diagnostics.
 *
 * <p>Not an API: nothing is exported. It reads core's exported API, plus the raw bindings ({@code linux}) and
 * the simulated-timekeeper SPI ({@code verify}) that core exports to this module alone. picocli reads the
 * command classes reflectively.
 */
module org.timekeeping4j.cli {
    requires org.timekeeping4j;
    // Not required here: the simulation module (tk4j verify skew, the counter's cost) is automatic, named by its
    // jar's manifest, and a reactor build before `package` offers only its class directory, which names no module.
    // The shaded jar carries it on the class path; a module-path run adds it (release-check's CliJarTest does).
    requires info.picocli;
    // HdrHistogram ships no module descriptor and no Automatic-Module-Name: its name is its jar's.
    requires HdrHistogram;
    // The CPU-time clocks' bench baselines: ThreadMXBean and com.sun.management's getProcessCpuTime.
    requires java.management;
    requires jdk.management;

    opens org.timekeeping4j.cli to info.picocli;
}
