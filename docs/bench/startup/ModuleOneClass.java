package org.timekeeping4j.startupfloor;

/**
 * The module path's floor in scripts/startup-bench.sh: one class added, in a package of its own, to a copy of core's
 * modular jar. The first call into it makes the JVM open that jar's module reader and load one class, what any call
 * into a module of core's size costs before the library's own code runs. Not part of the library.
 */
public final class ModuleOneClass {

    private ModuleOneClass() {}

    /** {@return System.nanoTime, from this module's class} */
    public static long nanoTime() {
        return System.nanoTime();
    }
}
