package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.testing.KernelClock;

/**
 * How long a {@code tk4j verify} run in the guest must be for its cells to reach their minimum of samples with a
 * wide margin, sized from what this guest can do rather than from a constant that held on a faster CPU: the cost
 * of one kernel clock read measured here (inside UML every read is a system call of tens of microseconds, more on a
 * slower host), and the number of cells the run will hold (a plan run that only lists them). A verdict then does
 * not depend on the host's CPU or load: a short cell would be INCONCLUSIVE, which fails the lab.
 */
final class LabSizing {

    /** verify's largest default minimum of samples per cell (consistency, agreement: 1,024 reads). */
    static final long MIN_SAMPLES = 1_024;
    /** How many times the minimum a cell is sized for, at the measured cost of one read. */
    static final long MARGIN = 16;
    /** A cell's floor: the child JVM's warm-up (interpreted reads) eats into the first ones. */
    static final double CELL_FLOOR_SECONDS = 0.5;

    private LabSizing() {}

    /** The median cost of one clock_gettime(MONOTONIC) here, in ns, over 2,001 reads after 2,000 warm-up. */
    static long readCostNanos() {
        long[] d = new long[2_001];
        for (int i = 0; i < 2_000; i++) {
            KernelClock.gettime(ClockId.MONOTONIC.id());
        }
        for (int i = 0; i < d.length; i++) {
            long a = KernelClock.gettime(ClockId.MONOTONIC.id());
            long b = KernelClock.gettime(ClockId.MONOTONIC.id());
            d[i] = b - a;
        }
        Arrays.sort(d);
        return Math.max(1, d[d.length / 2]);
    }

    /** Seconds for one cell: {@link #MARGIN} times the minimum at {@code costNanos} a read, at least the floor. */
    static double cellSeconds(long costNanos) {
        return Math.max(CELL_FLOOR_SECONDS, MARGIN * MIN_SAMPLES * costNanos / 1e9);
    }

    /**
     * The cells {@code tk4j verify MODE ARGS} would run here, as (path, clock) lines: a plan run with the minimum
     * lowered to 1 (it lists, the sized run verifies), which must not find a violation either.
     */
    static List<String[]> cells(String mode, String... args) throws Exception {
        String[] plan = CliLabTest.concat(new String[] {"verify", mode, "-t", "0.2", "--min-samples", "1"}, args);
        Tk4j.Run r = Tk4j.run(plan);
        r.assertPassed();
        Matcher m = Pattern.compile("(?m)^" + mode + " (\\S+) +(CLOCK_\\S+) ").matcher(r.out());
        List<String[]> cells = new java.util.ArrayList<>();
        while (m.find()) {
            cells.add(new String[] {m.group(1), m.group(2)});
        }
        assertThat(cells).as("cells listed by %s", r.out()).isNotEmpty();
        return cells;
    }

    /** {@code -t} for a run of {@code cells} cells at this guest's read cost, at least {@code floorSeconds}. */
    static String duration(int cells, double floorSeconds) {
        long cost = readCostNanos();
        double s = Math.max(floorSeconds, cells * cellSeconds(cost));
        System.out.printf(Locale.ROOT, "lab sizing: a kernel read costs %d ns here; %d cells -> -t %.1f%n", cost,
                cells, s);
        return String.format(Locale.ROOT, "%.1f", s);
    }
}
