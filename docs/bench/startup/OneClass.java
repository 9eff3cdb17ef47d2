/**
 * The floor of scripts/startup-bench.sh's first-read target: a library of one class in a jar of its own (and the same
 * class in a copy of core's jar, as many entries as the library's). The first call into it opens that jar and loads
 * that one class, what any library's first call costs on the class path before its own work.
 */
public final class OneClass {

    private OneClass() {}

    /** {@return System.nanoTime, from this jar's class} */
    public static long nanoTime() {
        return System.nanoTime();
    }
}
