package org.timekeeping4j.benchmarks;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.tracking.KernelTracker;

/**
 * What the tracker's updater thread costs once converged, measured rather than asserted (a test must not assert a
 * CPU time or a rate: load decides both). Not a JMH benchmark: the cost is a background thread's, so this starts a
 * tracker on the selected hardware counter, waits until it tracks and is past its fast phase, then measures windows
 * of wall time: updates per second, the updater thread's CPU time per update (its own CPU clock, which time spent
 * descheduled does not inflate) and its share of a core. Whether a time daemon steers the clock matters (each rate
 * change holds the interval at its 50 ms floor for two seconds): say which when quoting the figures.
 *
 * <pre>
 * scripts/java25 --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     org.timekeeping4j.benchmarks.TrackerUpdaterCost [windows (5)] [seconds per window (10)]
 * </pre>
 * Exit 2 where no hardware counter is trusted or the tracker does not converge within 20 s (no figure then).
 */
public final class TrackerUpdaterCost {

    private TrackerUpdaterCost() {}

    public static void main(String[] args) throws InterruptedException {
        int windows = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long windowMillis = (long) (1000 * (args.length > 1 ? Double.parseDouble(args[1]) : 10));
        CounterSelection s = CounterSelector.selected();
        if (!s.isHardware()) {
            System.err.println("TrackerUpdaterCost: no trusted hardware counter here: " + s.rejected());
            System.exit(2);
        }
        KernelTracker t = KernelTracker.start(s.clocksource());
        try {
            if (!t.awaitTracking(20, TimeUnit.SECONDS)) {
                System.err.println("TrackerUpdaterCost: the tracker did not converge in 20 s: " + t.status().reason());
                System.exit(2);
            }
            Thread.sleep(2_500); // past the fast phase (2 s of 10 ms steps after a build)
            System.out.printf(Locale.ROOT, "counter %s; %d windows of %d ms%n", s.clocksource().name(), windows,
                    windowMillis);
            double[] perSecond = new double[windows];
            double[] cpuPerUpdate = new double[windows];
            for (int i = 0; i < windows; i++) {
                KernelTracker.Status a = t.status();
                long w0 = System.nanoTime();
                Thread.sleep(windowMillis);
                KernelTracker.Status b = t.status();
                double wall = (System.nanoTime() - w0) / 1e9;
                long steps = b.steps() - a.steps();
                long cpu = b.updaterCpuNanos() - a.updaterCpuNanos();
                perSecond[i] = steps / wall;
                cpuPerUpdate[i] = steps == 0 ? Double.NaN : cpu / 1e3 / steps;
                System.out.printf(Locale.ROOT, "window %d: %d updates in %.2f s (%.1f/s), updater CPU %.1f us per"
                        + " update, %.3f%% of a core, rebuilds %d%n", i + 1, steps, wall, perSecond[i],
                        cpuPerUpdate[i], 100.0 * cpu / 1e9 / wall, b.rebuilds() - a.rebuilds());
            }
            Arrays.sort(perSecond);
            Arrays.sort(cpuPerUpdate);
            System.out.printf(Locale.ROOT, "median: %.1f updates/s, %.1f us CPU per update%n",
                    perSecond[windows / 2], cpuPerUpdate[windows / 2]);
        } finally {
            t.close();
        }
    }
}
