/**
 * timekeeping4j: Linux timekeeping for the JVM through the Foreign Function and Memory API.
 *
 * <p>The exported package {@code org.timekeeping4j} is the public API. Every other package is an
 * implementation detail shaped like the kernel's own time code: {@code linux} (FFM bindings). {@code clocksource}, {@code timekeeper}
 * and {@code adjust} are exported: the counter abstraction, timekeeping.c and ntp.c in Java.
 */
module org.timekeeping4j {
    exports org.timekeeping4j;
    exports org.timekeeping4j.clocksource;
    exports org.timekeeping4j.device;
    exports org.timekeeping4j.timekeeper;
    exports org.timekeeping4j.adjust;
    exports org.timekeeping4j.verify;

    uses org.timekeeping4j.verify.SimulatedTimekeeper.Provider;
    provides org.timekeeping4j.verify.SimulatedTimekeeper.Provider
            with org.timekeeping4j.verify.TimekeeperSkewProvider;
}
