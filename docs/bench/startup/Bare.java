import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The baselines of scripts/startup-bench.sh: a cold JVM's first read without the library. {@code nanotime}:
 * System.nanoTime; {@code instant}: Instant.now; {@code ffm-monotonic}, {@code ffm-realtime}, {@code ffm-boottime}:
 * one clock_gettime through a bare FFM downcall (the linker, the lookup, the handle and the call are the first read);
 * {@code one-class}: System.nanoTime through {@link OneClass}, the only class of a jar of its own (a library's floor);
 * {@code one-class-module}: the same through {@code ModuleOneClass}, added to a copy of core's jar on the module path.
 * Each first read is a method of a class of its own, so that no variant loads or verifies another's classes.
 */
public final class Bare {

    private Bare() {}

    public static void main(String[] args) throws Throwable {
        String what = args[0];
        long t0 = System.nanoTime();
        long v;
        if (what.equals("nanotime")) {
            v = System.nanoTime();
        } else if (what.equals("instant")) {
            v = Jdk.instantNow();
        } else if (what.equals("ffm-monotonic")) {
            v = Ffm.clockGettime(1);
        } else if (what.equals("ffm-realtime")) {
            v = Ffm.clockGettime(0);
        } else if (what.equals("ffm-boottime")) {
            v = Ffm.clockGettime(7);
        } else if (what.equals("one-class")) {
            v = OneClass.nanoTime();
        } else if (what.equals("one-class-module")) {
            v = org.timekeeping4j.startupfloor.ModuleOneClass.nanoTime();
        } else {
            throw new IllegalArgumentException(what);
        }
        long t1 = System.nanoTime();
        long ms = System.currentTimeMillis();
        Probe.report(t1 - t0, t1, ms, -1, v);
    }

    static final class Jdk {
        static long instantNow() {
            java.time.Instant i = java.time.Instant.now();
            return i.getEpochSecond() * 1_000_000_000L + i.getNano();
        }
    }

    static final class Ffm {
        /** clock_gettime(id) as a program that needs one clock and nothing else writes it. */
        static long clockGettime(int id) throws Throwable {
            Linker linker = Linker.nativeLinker();
            MethodHandle h = linker.downcallHandle(linker.defaultLookup().find("clock_gettime").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ts = arena.allocate(16, 8);
                int rc = (int) h.invokeExact(id, ts);
                if (rc != 0) {
                    throw new IllegalStateException("clock_gettime(" + id + ") returned " + rc);
                }
                return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
            }
        }
    }
}
