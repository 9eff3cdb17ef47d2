package org.timekeeping4j.cli.verify;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;

/** Runs the verify modes over (path, clock) cells; the commands and the main job print what it returns. */
public final class Verifier {

    /** Each timed cell runs at least this long, whatever the split of the total. */
    static final long MIN_CELL_NANOS = 10_000_000L;

    private Verifier() {}

    /**
     * What to run.
     *
     * @param paths    the paths to check
     * @param clocks   the clocks to check; empty for every clock each path serves
     * @param seconds  total time of a timed mode, shared by its cells
     * @param threads  threads per cell (causality: publisher plus readers); 0 for the mode's default
     * @param progress where the current step is reported
     */
    public record Settings(List<ClockPath> paths, List<ClockId> clocks, double seconds, int threads,
                           Progress progress) {}

    /** The timed modes' cells for these settings. */
    public static List<Cell> cells(String mode, Settings s) {
        Predicate<ClockId> accepts = "causality".equals(mode) ? CausalityCheck::accepts : c -> true;
        return Cell.of(s.paths(), s.clocks(), accepts);
    }

    public static List<CheckResult> consistency(Settings s) {
        return timed("consistency", s, 2, (cell, nanos, threads) -> ConsistencyCheck.run("consistency",
                cell.subject(), cell.path().reader(cell.clock()), nanos, threads));
    }

    public static List<CheckResult> causality(Settings s) {
        return timed("causality", s, 2, (cell, nanos, threads) -> {
            CheckResult r = CausalityCheck.run("causality", cell.subject(), cell.path().reader(cell.clock()), nanos,
                    threads);
            if (r.status() == Status.FAILED && !cell.path().orderedAcrossThreads()) {
                // Measured and reported, not failed: this path documents that it promises no cross-thread order.
                return new CheckResult(r.mode(), r.subject(), Status.SKIPPED, "causality " + cell.subject()
                        + ": not promised (unordered reads); measured: " + r.summary(), r.metrics(), r.details());
            }
            return r;
        });
    }

    public static List<CheckResult> agreement(Settings s) {
        return timed("agreement", s, 1, (cell, nanos, threads) -> AgreementCheck.run("agreement", cell, nanos, threads));
    }

    public static List<CheckResult> abi(Settings s) {
        s.progress().doing("abi");
        return AbiCheck.run(s.paths(), 10_000);
    }

    public static List<CheckResult> skew(Settings s, long flipNanos, long ppb) {
        return SkewCheck.run(s.clocks(), seconds(s.seconds()), s.threads() > 0 ? s.threads() : 2, flipNanos, ppb,
                s.progress());
    }

    private interface CellRun {
        CheckResult run(Cell cell, long nanos, int threads);
    }

    private static List<CheckResult> timed(String mode, Settings s, int defaultThreads, CellRun run) {
        List<Cell> cells = cells(mode, s);
        List<CheckResult> results = new ArrayList<>();
        if (cells.isEmpty()) {
            return results;
        }
        long perCell = Math.max(MIN_CELL_NANOS, seconds(s.seconds()) / cells.size());
        int threads = s.threads() > 0 ? s.threads() : defaultThreads;
        for (Cell cell : cells) {
            s.progress().doing(mode + " " + cell.subject());
            results.add(run.run(cell, perCell, threads));
        }
        return results;
    }

    static long seconds(double s) {
        return (long) (s * 1e9);
    }

    /** Human output: one line per check, a failure's details under it, then [OK] / [FAILED] / [SKIPPED]. */
    public static void print(PrintWriter out, List<CheckResult> results) {
        for (CheckResult r : results) {
            if (r.status() == Status.FAILED) {
                out.printf("%-11s %-34s %s%n", r.mode(), r.subject(), r.summary());
                for (String d : r.details()) {
                    out.println("    " + d);
                }
                out.printf("%-11s %-34s [FAILED]%n", r.mode(), r.subject());
            } else if (r.status() == Status.SKIPPED) {
                out.println(r.summary());
                out.printf("%-11s %-34s [SKIPPED]%n", r.mode(), r.subject());
            } else {
                out.printf("%-11s %-34s [%s] %s%n", r.mode(), r.subject(), r.status(), r.summary());
            }
        }
    }

    /** "21 OK, 1 FAILED, 1 SKIPPED" */
    public static String tally(List<CheckResult> results) {
        long ok = results.stream().filter(r -> r.status() == Status.OK).count();
        long failed = results.stream().filter(r -> r.status() == Status.FAILED).count();
        long skipped = results.stream().filter(r -> r.status() == Status.SKIPPED).count();
        return ok + " OK, " + failed + " FAILED" + (skipped > 0 ? ", " + skipped + " SKIPPED" : "");
    }

    /** Whether any check failed. */
    public static boolean anyFailed(List<CheckResult> results) {
        return results.stream().anyMatch(r -> r.status() == Status.FAILED);
    }
}
