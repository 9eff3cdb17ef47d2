/**
 * tk4j, the timekeeping4j command line: clock reads, benchmarks, verification and device diagnostics.
 *
 * <p>Not an API: nothing is exported. It reads core's exported API, plus the raw bindings ({@code linux}) and
 * the simulated-timekeeper SPI ({@code verify}) that core exports to this module alone. picocli reads the
 * command classes reflectively.
 */
module org.timekeeping4j.cli {
    requires org.timekeeping4j;
    // The simulated timekeepers of tk4j verify skew: an automatic module (its jar names it), inside the shaded jar.
    requires org.timekeeping4j.simulation;
    requires info.picocli;
    // HdrHistogram ships no module descriptor and no Automatic-Module-Name: its name is its jar's.
    requires HdrHistogram;

    opens org.timekeeping4j.cli to info.picocli;
}
