package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.Snapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import org.timekeeping4j.cli.text.Prose;

/**
 * {@code tk4j capture}: capture latency measured as the kernel's snapshot work measured it (ktime_get_snapshot_id()): the
 * interval from a counter read in the caller ({@code Clocks.ticks()}, the counter the library's diagnostics name)
 * to the counter read inside the call, mean of 1M iterations, plus the distribution. It runs wherever ticks are
 * counter cycles, at the rate {@code Diagnostics.Ticks} states.
 *
 * <p>For {@code Clocks.snapshot} the inner counter value is in the snapshot itself. For the other paths the
 * returned time is mapped back to counter time through the fast path's own conversion (the clock is a linear
 * function of the counter there): exact for {@code Clocks.nanos}; for the kernel's clock_gettime and
 * System.nanoTime the mapping is off by the fast path's disagreement with the kernel (tens of ns, see
 * {@code tk4j verify agreement}), which bounds those two figures.
 */
@Command(name = "capture", mixinStandardHelpOptions = true,
        description = "Capture latency per path: caller's counter read to the counter read inside the call.")
final class CaptureCommand implements Callable<Integer> {

    /** The most iterations per path (a few seconds per path at the kernel's speed). */
    static final long MAX_ITERATIONS = 100_000_000L;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N", defaultValue = "1M", converter = CountConverter.class,
            description = "Iterations per path: 1000..100M, with an optional k or M suffix (default 1M).")
    long iterations;

    @Option(names = "--json", description = "One JSON object.")
    boolean json;

    @Spec
    CommandSpec spec;

    /** One path: runs the call once and returns the inner counter value (caller's read is {@code c0}). */
    private interface Probe {
        long innerCounter(long c0);
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Validate.range(spec, "--iterations", iterations, 1000, MAX_ITERATIONS);
        // The counter is the one Clocks.ticks() reads, as the library's diagnostics say: no second selection.
        Diagnostics d = Clocks.diagnostics();
        Diagnostics.Ticks ticks = d.ticks();
        if (!ticks.counterCycles() || ticks.frequencyHz() <= 0) {
            out.println(Terminal.folded("capture: ticks are " + ticks.counter() + " here, not counter cycles ("
                    + d.stage() + ": " + d.why() + "); nothing to measure against", Terminal.width(spec), "  "));
            return Tk4j.EXIT_SKIPPED;
        }
        double nsPerCycle = 1e9 / ticks.frequencyHz();
        Snapshot snapshot = new Snapshot();
        Map<String, Probe> probes = new LinkedHashMap<>();
        probes.put("Clocks.ticks() (reference)", c0 -> Clocks.ticks());
        probes.put("Clocks.snapshot(REALTIME)", c0 -> {
            Clocks.snapshot(ClockId.REALTIME, snapshot);
            return snapshot.isFromCounter() ? snapshot.ticks() : Long.MIN_VALUE;
        });
        probes.put("Clocks.nanos(REALTIME)", c0 -> inverse(c0, Clocks.nanos(ClockId.REALTIME), ClockId.REALTIME, nsPerCycle));
        probes.put("KernelClocks.nanos(REALTIME) (FFM clock_gettime)",
                c0 -> inverse(c0, KernelClocks.nanos(ClockId.REALTIME), ClockId.REALTIME, nsPerCycle));
        probes.put("System.nanoTime()", c0 -> inverse(c0, System.nanoTime(), ClockId.MONOTONIC, nsPerCycle));

        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, Probe> e : probes.entrySet()) {
            rows.add(measure(e.getKey(), e.getValue(), nsPerCycle));
        }
        // The ratio is of p50s, printed next to it: a mean carries every preemption and interrupt of the run and
        // made a snapshot look cheaper than the counter read inside it.
        double reference = (Double) rows.get(0).get("p50Ns");
        for (Map<String, Object> r : rows) {
            r.put("p50RatioToCounterRead", (Double) r.get("p50Ns") / reference);
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("iterations", iterations);
            m.put("counter", ticks.counter());
            m.put("read", ticks.read());
            m.put("paths", rows);
            out.println(Json.write(m, Terminal.width(spec)));
        } else {
            int width = Terminal.width(spec);
            out.println(Terminal.folded(String.format("capture latency: from Clocks.ticks() in the caller (%s, %s) to "
                    + "the counter read inside the call, %,d iterations per path", ticks.counter(), ticks.read(),
                    iterations),
                    width, "  "));
            int pathW = rows.stream().mapToInt(r -> label(r).length()).max().orElse(4);
            // The figures take 48 columns: where the paths do not fit beside them, each path heads its figures.
            boolean stacked = pathW + 1 + 48 > width;
            String first = stacked ? "  " : "%-" + pathW + "s ";
            out.printf(first + "%10s %8s %8s %8s %10s%n", stacked ? new Object[] {"mean", "p99", "p99.9", "p50",
                    "p50 x read"} : new Object[] {"path", "mean", "p99", "p99.9", "p50", "p50 x read"});
            String notes = "";
            for (Map<String, Object> r : rows) {
                if (stacked) {
                    out.println(label(r));
                }
                Object[] figures = {r.get("meanNs"), r.get("p99Ns"), r.get("p999Ns"), r.get("p50Ns"),
                        r.get("p50RatioToCounterRead")};
                out.printf(first + "%8.1fns %6.1fns %6.1fns %6.1fns %9.2fx%n", stacked ? figures
                        : java.util.stream.Stream.concat(java.util.stream.Stream.of(label(r)),
                                java.util.Arrays.stream(figures)).toArray());
                String note = String.valueOf(r.get("note"));
                if (!note.isEmpty() && !notes.contains(note)) {
                    notes += (notes.isEmpty() ? "" : System.lineSeparator())
                            + Terminal.folded(marker(r) + " " + note, width, "  ");
                }
            }
            if (!notes.isEmpty()) {
                out.println(notes);
            }
        }
        return 0;
    }

    /** The row's path with its note's marker, "System.nanoTime() *": the notes print under the table. */
    private static String label(Map<String, Object> r) {
        String m = marker(r);
        return r.get("path") + (m.isEmpty() ? "" : " " + m);
    }

    /** "*" for a figure mapped through the fast path, "**" for one with reads on the kernel path, else "". */
    private static String marker(Map<String, Object> r) {
        String note = String.valueOf(r.get("note"));
        return note.isEmpty() ? "" : note.startsWith("(mapped") ? "*" : "**";
    }

    /**
     * The counter value at which the fast path's {@code clock} reads {@code nanos}: the clock is linear in the
     * counter, so c0 plus the difference to its value at c0, in cycles.
     */
    private static long inverse(long c0, long nanos, ClockId clock, double nsPerCycle) {
        long atC0 = Clocks.ticksToNanos(c0, clock);
        return c0 + Math.round((nanos - atC0) / nsPerCycle);
    }

    private Map<String, Object> measure(String name, Probe probe, double nsPerCycle) {
        for (int i = 0; i < Math.min(iterations, 200_000); i++) { // warm-up: JIT, first-use binding
            probe.innerCounter(Clocks.ticks());
        }
        Histogram h = new Histogram(3);
        double sum = 0;
        long invalid = 0;
        for (int i = 0; i < iterations; i++) {
            long c0 = Clocks.ticks();
            long inner = probe.innerCounter(c0);
            if (inner == Long.MIN_VALUE) {
                invalid++;
                continue;
            }
            double ns = (inner - c0) * nsPerCycle;
            sum += ns;
            h.recordValue(Math.max(0, Math.round(ns * 10))); // tenths of ns
        }
        long n = iterations - invalid;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", name);
        r.put("meanNs", n == 0 ? Double.NaN : sum / n);
        r.put("p50Ns", h.getValueAtPercentile(50) / 10.0);
        r.put("p99Ns", h.getValueAtPercentile(99) / 10.0);
        r.put("p999Ns", h.getValueAtPercentile(99.9) / 10.0);
        r.put("samples", n);
        r.put("note", new Prose(name.startsWith("KernelClocks.nanos") || name.startsWith("System.nanoTime")
                ? "(mapped through the fast path: +/- its kernel disagreement)"
                : invalid > 0 ? "(" + invalid + " reads on the kernel path, not counted)" : ""));
        return r;
    }
}
