import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * The library's variants of scripts/startup-bench.sh: a cold JVM's first read of a clock through timekeeping4j.
 * Arguments: the clock ({@code monotonic}, {@code realtime}, {@code boottime}), the call ({@code nanos}:
 * Clocks.nanos(id); {@code reader}: Clocks.reader(id).nanos(), both in the first read), and optionally {@code serve}:
 * after the first read, wait until exact mode serves and print how long that took. Every library class the first
 * read initialises (ClockId included) is initialised inside the timed call.
 */
public final class Lib {

    private Lib() {}

    public static void main(String[] args) throws Throwable {
        String clock = args[0];
        boolean reader = args[1].equals("reader");
        boolean serve = args.length > 2 && args[2].equals("serve");
        long t0 = System.nanoTime();
        long v = reader ? firstReader(clock) : firstNanos(clock);
        long t1 = System.nanoTime();
        long ms = System.currentTimeMillis();
        long serveNanos = -1;
        if (serve) {
            long served = awaitExactMode(10_000_000_000L);
            serveNanos = served >= 0 ? served - t1 : -2;
        }
        Probe.report(t1 - t0, t1, ms, serveNanos, v);
    }

    private static long firstNanos(String clock) {
        if (clock.equals("monotonic")) {
            return Clocks.nanos(ClockId.MONOTONIC);
        } else if (clock.equals("realtime")) {
            return Clocks.nanos(ClockId.REALTIME);
        } else if (clock.equals("boottime")) {
            return Clocks.nanos(ClockId.BOOTTIME);
        }
        throw new IllegalArgumentException(clock);
    }

    private static long firstReader(String clock) {
        if (clock.equals("monotonic")) {
            return Clocks.reader(ClockId.MONOTONIC).nanos();
        } else if (clock.equals("realtime")) {
            return Clocks.reader(ClockId.REALTIME).nanos();
        } else if (clock.equals("boottime")) {
            return Clocks.reader(ClockId.BOOTTIME).nanos();
        }
        throw new IllegalArgumentException(clock);
    }

    /**
     * Waits until exact mode (the kernel's vDSO data read in user space) serves MONOTONIC. The thread blocks in
     * {@code Clocks.awaitExactMode} until the discovery settles and takes the time; only then does it ask, by
     * reflection, whether exact mode serves: {@code Clocks.diagnostics().stage() == EXACT}, or with f71f948's API
     * {@code Clocks.servingPaths()} (MONOTONIC's path COUNTER for a reason "exact: ..."), polled every 0.2 ms where
     * the answer is not yet. So nothing of the benchmark's own (reflection spins method handles, the diagnostics read
     * the kernel's data) runs beside the discovery it times or inside the figure. When the API changes again, change
     * {@link #exactNow}.
     *
     * @param timeoutNanos how long to wait at most
     * @return System.nanoTime when exact mode was found serving, or -1 where it did not within the timeout
     */
    static long awaitExactMode(long timeoutNanos) throws ReflectiveOperationException {
        long deadline = System.nanoTime() + timeoutNanos;
        Clocks.awaitExactMode(Duration.ofNanos(timeoutNanos));
        long now = System.nanoTime();
        while (now - deadline < 0) {
            if (exactNow()) {
                return now; // exact mode served when this check began
            }
            LockSupport.parkNanos(200_000L);
            now = System.nanoTime();
        }
        return -1;
    }

    private static boolean exactNow() throws ReflectiveOperationException {
        java.lang.reflect.Method diagnostics;
        try {
            diagnostics = Clocks.class.getMethod("diagnostics");
        } catch (NoSuchMethodException e) {
            Object p = ((java.util.Map<?, ?>) Clocks.class.getMethod("servingPaths").invoke(null))
                    .get(ClockId.MONOTONIC);
            return String.valueOf(p.getClass().getMethod("path").invoke(p)).equals("COUNTER")
                    && String.valueOf(p.getClass().getMethod("reason").invoke(p)).startsWith("exact");
        }
        Object d = diagnostics.invoke(null);
        return String.valueOf(d.getClass().getMethod("stage").invoke(d)).equals("EXACT");
    }
}
