package org.timekeeping4j.cli.verify;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.text.Fold;

/** Runs the verify modes over (path, clock) cells; the commands and the main job print what it returns. */
public final class Verifier {

    /** Each timed cell runs at least this long, whatever the split of the total. */
    static final long MIN_CELL_NANOS = 10_000_000L;
    /**
     * A cell that ends with fewer samples than its check's minimum and no violation runs again with four times
     * the time, at most this many times in all, before it is reported INCONCLUSIVE.
     */
    static final int MAX_ATTEMPTS = 3;

    private Verifier() {}

    /**
     * What to run.
     *
     * @param paths    the paths to check
     * @param clocks   the clocks to check; empty for every clock each path serves
     * @param seconds  total time of a timed mode, shared by its cells
     * @param threads  threads per cell (causality: publisher plus readers); 0 for the mode's default
     * @param progress where the current step is reported
     * @param minSamples every timed check's minimum sample count for OK; 0 for each check's own default
     *                   ({@link ConsistencyCheck#MIN_READS}, {@link CausalityCheck#MIN_CHECKS},
     *                   {@link AgreementCheck#MIN_READS}). A run under emulation, 25-100x slower, may lower it; the
     *                   results then say so.
     */
    public record Settings(List<ClockPath> paths, List<ClockId> clocks, double seconds, int threads,
                           Progress progress, long minSamples) {

        /** With each check's default minimum. */
        public Settings(List<ClockPath> paths, List<ClockId> clocks, double seconds, int threads, Progress progress) {
            this(paths, clocks, seconds, threads, progress, 0);
        }

        public Settings {
            if (minSamples < 0) {
                throw new IllegalArgumentException("minSamples " + minSamples + " < 0");
            }
        }

        /** The same settings with {@code seconds} instead. */
        public Settings withSeconds(double newSeconds) {
            return new Settings(paths, clocks, newSeconds, threads, progress, minSamples);
        }

        /** This run's minimum for a check whose own is {@code defaultMinimum}. */
        long minimum(long defaultMinimum) {
            return minSamples > 0 ? minSamples : defaultMinimum;
        }
    }

    /** The timed modes' cells for these settings. */
    public static List<Cell> cells(String mode, Settings s) {
        Predicate<ClockId> accepts = "causality".equals(mode) ? CausalityCheck::accepts : c -> true;
        return Cell.of(s.paths(), s.clocks(), accepts);
    }

    public static List<CheckResult> consistency(Settings s) {
        long min = s.minimum(ConsistencyCheck.MIN_READS);
        return timed("consistency", s, 2, (cell, nanos, threads) -> ConsistencyCheck.run("consistency",
                cell.subject(), cell.path().reader(cell.clock()), nanos, threads, min));
    }

    public static List<CheckResult> causality(Settings s) {
        long min = s.minimum(CausalityCheck.MIN_CHECKS);
        return timed("causality", s, 2, (cell, nanos, threads) -> {
            CheckResult r = CausalityCheck.run("causality", cell.subject(), cell.path().reader(cell.clock()), nanos,
                    threads, min);
            if (!cell.path().orderedAcrossThreads() && r.status() != Status.INCONCLUSIVE) {
                // Measured and reported, whatever the figure: this path documents that it promises no cross-thread
                // order, so neither a violation nor its absence says anything about the path's promises.
                long violations = ((Number) r.metrics().getOrDefault("violations", 0L)).longValue();
                long checks = ((Number) r.metrics().getOrDefault("checks", 0L)).longValue();
                return new CheckResult(r.mode(), r.subject(), Status.MEASURED,
                        CausalityCheck.reordered(violations, checks), r.metrics(), List.of()); // the main screen's words
            }
            return r;
        });
    }

    public static List<CheckResult> agreement(Settings s) {
        long min = s.minimum(AgreementCheck.MIN_READS);
        return timed("agreement", s, 1, (cell, nanos, threads) -> AgreementCheck.run("agreement", cell, nanos, threads,
                min));
    }

    public static List<CheckResult> abi(Settings s) {
        s.progress().doing("abi");
        return AbiCheck.run(s.paths(), 10_000);
    }

    public static List<CheckResult> tai(Settings s) {
        s.progress().doing("tai");
        return List.of(TaiOffsetCheck.run());
    }

    public static List<CheckResult> skew(Settings s, long flipNanos, long ppb) {
        return SkewCheck.run(s.clocks(), seconds(s.seconds()), s.threads() > 0 ? s.threads() : 2, flipNanos, ppb,
                s.minimum(ConsistencyCheck.MIN_READS), s.progress());
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
            results.add(withRetries(mode, s.progress(), cell, perCell, threads, run));
        }
        return results;
    }

    /** Runs a cell; runs it again with four times the time while it is INCONCLUSIVE, {@link #MAX_ATTEMPTS} in all. */
    private static CheckResult withRetries(String mode, Progress progress, Cell cell, long nanos, int threads,
                                           CellRun run) {
        long time = nanos;
        CheckResult r = null;
        int attempt = 0;
        while (attempt < MAX_ATTEMPTS && (r == null || r.status() == Status.INCONCLUSIVE)) {
            attempt++;
            progress.doing(mode + " " + cell.subject() + (attempt == 1 ? "" : " (again: too few samples)"));
            r = run.run(cell, time, threads);
            time *= 4;
        }
        if (attempt == 1) {
            return r;
        }
        java.util.Map<String, Object> metrics = new java.util.LinkedHashMap<>(r.metrics());
        metrics.put("attempts", attempt);
        return new CheckResult(r.mode(), r.subject(), r.status(), r.summary() + " (attempt " + attempt + " of "
                + MAX_ATTEMPTS + ": the earlier had too few samples)", metrics, r.details());
    }

    static long seconds(double s) {
        return (long) (s * 1e9);
    }

    /**
     * Human output: one line per check, "MODE SUBJECT [STATUS] SUMMARY", a failure's details under it, then [OK] /
     * [FAILED] / [INCONCLUSIVE] / [MEASURED] / [SKIPPED]. Subjects and statuses are aligned within each mode (a
     * MEASURED causality widens no other mode's column); a summary too long for {@code width} columns folds onto
     * lines indented by {@value #CONTINUATION} blanks.
     */
    public static void print(PrintWriter out, List<CheckResult> results, int width) {
        java.util.Map<String, Integer> subjectWidth = new java.util.HashMap<>();
        for (CheckResult r : results) {
            subjectWidth.merge(r.mode(), r.subject().length(), Math::max);
        }
        int modeWidth = Math.max(11, results.stream().mapToInt(r -> r.mode().length()).max().orElse(0));
        java.util.Map<String, Integer> statusWidth = new java.util.HashMap<>();
        for (CheckResult r : results) {
            if (r.status() != Status.FAILED && r.status() != Status.SKIPPED) {
                statusWidth.merge(r.mode(), r.status().name().length() + 2, Math::max);
            }
        }
        String indent = " ".repeat(CONTINUATION);
        for (CheckResult r : results) {
            String columns = "%-" + modeWidth + "s %-" + subjectWidth.get(r.mode()) + "s ";
            if (r.status() == Status.FAILED) {
                out.println(Fold.text(String.format(columns + "%s", r.mode(), r.subject(), r.summary()), width,
                        indent));
                for (String d : r.details()) {
                    out.println("    " + d);
                }
                out.printf(columns + "[FAILED]%n", r.mode(), r.subject());
            } else if (r.status() == Status.SKIPPED) {
                out.println(Fold.text(r.summary(), width, indent));
                out.printf(columns + "[SKIPPED]%n", r.mode(), r.subject());
            } else {
                String status = "%-" + statusWidth.get(r.mode()) + "s %s";
                out.println(Fold.text(String.format(columns + status, r.mode(), r.subject(),
                        "[" + r.status() + "]", r.summary()), width, indent));
            }
        }
    }

    /** Where a folded summary's later lines start. */
    static final int CONTINUATION = 6;

    /** "21 OK, 1 FAILED, 2 MEASURED, 1 SKIPPED": OK and FAILED always, the others when there are any. */
    public static String tally(List<CheckResult> results) {
        StringBuilder sb = new StringBuilder();
        for (Status st : Status.values()) {
            long n = count(results, st);
            if (n > 0 || st == Status.OK || st == Status.FAILED) {
                sb.append(sb.isEmpty() ? "" : ", ").append(n).append(' ').append(st);
            }
        }
        return sb.toString();
    }

    /** How many results have {@code status}. */
    public static long count(List<CheckResult> results, Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** Whether any check ended without enough samples to pass or fail. */
    public static boolean anyInconclusive(List<CheckResult> results) {
        return count(results, Status.INCONCLUSIVE) > 0;
    }

    /** Whether any check failed. */
    public static boolean anyFailed(List<CheckResult> results) {
        return results.stream().anyMatch(r -> r.status() == Status.FAILED);
    }
}
