package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.cli.bench.BenchHtml;
import org.timekeeping4j.cli.bench.ReadBenchmark;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.verify.CheckResult;
import org.timekeeping4j.cli.verify.Progress;
import org.timekeeping4j.cli.verify.Status;
import org.timekeeping4j.cli.verify.Verifier;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;

/**
 * {@code tk4j} without a command: on one screen, which clock paths this machine can use, how fast each is
 * against the JDK, and whether all are correct. A short {@code info}, a short {@code bench} and a short
 * {@code verify all}, in about {@code budget} seconds (default 10, well under 20).
 *
 * <p>Exit 0 when every check passed, 1 when one failed, 3 when one was inconclusive (too few samples).
 */
final class MainJob {

    /** The widest line the table may print: it wraps into parts (each repeating the clock column) beyond it. */
    static final int WIDTH = 120;

    private final PrintWriter out;
    private final PrintWriter err;
    private final double budget;

    MainJob(PrintWriter out, PrintWriter err, double budgetSeconds) {
        this.out = out;
        this.err = err;
        this.budget = budgetSeconds;
    }

    int run() {
        List<ClockPath> paths = ClockPaths.available();
        header();

        // About 45% of the budget measures, 40% verifies; the rest is JVM start, warm-up and printing.
        long cells = paths.stream().mapToLong(p -> p.clocks().size()).sum();
        double perCell = budget * 0.45 / Math.max(1, cells);
        List<ReadBenchmark.CellResult> bench = BenchCommand.measure(paths, List.of(), perCell * 0.25, perCell * 0.75,
                ReadBenchmark.DEFAULT_BATCH, ReadBenchmark.DEFAULT_ROUNDS, err);
        List<CheckResult> checks;
        try (Progress progress = new Progress(err, "tk4j verify", budget * 0.4)) {
            checks = VerifyCommand.runAll(new Verifier.Settings(paths, List.of(), budget * 0.4, 0, progress));
        }
        table(paths, bench, checks);
        return footer(paths, checks);
    }

    private void header() {
        LinuxTime.Uname u = LinuxTime.uname();
        String cs = KernelInfo.currentClocksource();
        out.printf("tk4j: %s %s %s, clocksource %s (available: %s), Java %s%n", u.sysname(), u.release(), u.machine(),
                cs == null || cs.isEmpty() ? "(unknown)" : cs, String.join(" ", KernelInfo.availableClocksources()),
                Runtime.version());
        List<String> flags = KernelInfo.counterFlags();
        SyncStatus s = SyncStatus.read();
        String sync = !s.isAvailable() ? s.availability()
                : (s.isSynchronized() ? "synchronized" : "NOT synchronized") + ", maxerror " + s.maxErrorMicros()
                        + " us, TAI-UTC " + s.taiOffsetSeconds() + " s";
        out.printf("counter flags: %s; NTP: %s%n", flags.isEmpty() ? "(none)" : String.join(" ", flags), sync);
        out.flush();
    }

    private void table(List<ClockPath> paths, List<ReadBenchmark.CellResult> bench, List<CheckResult> checks) {
        Map<String, ReadBenchmark.CellResult> byCell = new LinkedHashMap<>();
        for (ReadBenchmark.CellResult r : bench) {
            byCell.put(r.cell().subject(), r);
        }
        Map<ClockId, String> unsupported = new LinkedHashMap<>();
        List<ClockId> rows = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            Optional<String> why = Clocks.whyUnsupported(c);
            if (why.isPresent()) {
                unsupported.put(c, why.get());
            } else {
                rows.add(c);
            }
        }
        // Every column as wide as its widest entry (a path's name or a cell's figures), two blanks apart.
        List<List<String>> cells = new ArrayList<>();
        for (ClockId c : rows) {
            List<String> line = new ArrayList<>();
            line.add(c.kernelName().substring("CLOCK_".length())); // the heading says CLOCK_
            line.add(res(Clocks.resolutionNanos(c)));
            String baseline = "-";
            for (ClockPath p : paths) {
                ReadBenchmark.CellResult r = byCell.get(p.name() + " " + c.kernelName());
                line.add(r == null ? "-" : r.isBaseline() ? BenchHtml.fmt(r.p50Ns()) + " (baseline)"
                        : BenchHtml.fmt(r.p50Ns()) + " " + ratio(r));
                if (r != null) {
                    baseline = shortCall(r.baselineCall());
                }
            }
            line.add(baseline);
            line.add(verdict(checks, c));
            cells.add(line);
        }
        List<String> head = new ArrayList<>(List.of("CLOCK_", "res"));
        paths.forEach(p -> head.add(p.name()));
        head.add("baseline");
        head.add("verify");
        int[] width = new int[head.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = head.get(i).length();
            for (List<String> line : cells) {
                width[i] = Math.max(width[i], line.get(i).length());
            }
        }
        out.println();
        out.printf(Locale.ROOT, "ns per read (p50 of batches) and its ratio to the baseline JDK call's p50: the median "
                + "of %d%nalternating rounds, +- half their range (~: too noisy to rank); verify: checks passed%n",
                ReadBenchmark.DEFAULT_ROUNDS);
        boolean first = true;
        for (int[] part : parts(width)) {
            if (!first) {
                out.println();
            }
            first = false;
            out.println(row(head, width, part));
            for (List<String> line : cells) {
                out.println(row(line, width, part));
            }
        }
        printUnsupported(unsupported);
    }

    /**
     * The table's columns in parts that each fit {@link #WIDTH} columns: every part starts with the clock's
     * column, then takes the next columns in order while they fit (at least one, however wide).
     */
    static List<int[]> parts(int[] width) {
        List<int[]> parts = new ArrayList<>();
        int next = 1;
        while (next < width.length) {
            List<Integer> part = new ArrayList<>(List.of(0));
            int used = width[0];
            while (next < width.length && (part.size() == 1 || used + 2 + width[next] <= WIDTH)) {
                used += 2 + width[next];
                part.add(next++);
            }
            parts.add(part.stream().mapToInt(Integer::intValue).toArray());
        }
        return parts;
    }

    /**
     * "0.86x+-0.04", "~0.98x+-0.21" when the rounds are too far apart to rank; a half-range of 10 or more to
     * three figures ("~13.49x+-65.2", "~2.04x+-472"), which keeps noisy cells narrow.
     */
    static String ratio(ReadBenchmark.CellResult r) {
        double half = (r.ratioHigh() - r.ratioLow()) / 2;
        return String.format(Locale.ROOT, "%s%.2fx+-" + (half >= 100 ? "%.0f" : half >= 10 ? "%.1f" : "%.2f"),
                r.noisy() ? "~" : "", r.p50Ratio(), half);
    }

    /** The columns {@code part} of one line, two blanks apart; the resolution (column 1) right-aligned. */
    private static String row(List<String> values, int[] width, int[] part) {
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < part.length; j++) {
            int i = part[j];
            String v = values.get(i);
            boolean last = j == part.length - 1;
            sb.append(i == 1 ? String.format("%" + width[i] + "s", v) : last ? v
                    : String.format("%-" + width[i] + "s", v));
            if (!last) {
                sb.append("  ");
            }
        }
        return sb.toString();
    }

    /**
     * One line per reason, the clocks sharing it named together, e.g. "CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM:
     * need an alarm-capable RTC ..." (tk4j info has the full text per clock).
     */
    private void printUnsupported(Map<ClockId, String> unsupported) {
        Map<String, List<ClockId>> byReason = new LinkedHashMap<>();
        for (Map.Entry<ClockId, String> e : unsupported.entrySet()) {
            String reason = e.getValue().replace(e.getKey().kernelName() + " ", "")
                    .replaceAll("/aux_clocks/\\d+/", "/aux_clocks/N/")
                    .replaceAll(" \\(clock_gettime answers [^()]*(\\([^()]*\\))?\\)", "");
            byReason.computeIfAbsent(reason, r -> new ArrayList<>()).add(e.getKey());
        }
        for (Map.Entry<String, List<ClockId>> e : byReason.entrySet()) {
            List<ClockId> clocks = e.getValue();
            String names = clocks.size() > 2 && clocks.stream().allMatch(ClockId::isAux)
                    ? "CLOCK_AUX+" + (clocks.get(0).id() - ClockId.AUX_BASE) + "..+"
                            + (clocks.get(clocks.size() - 1).id() - ClockId.AUX_BASE)
                    : String.join(", ", clocks.stream().map(ClockId::kernelName).toList());
            String reason = clocks.size() == 1 ? e.getKey()
                    : e.getKey().replaceFirst("^needs ", "need ").replaceFirst("^is ", "are ");
            out.println("  not readable: " + names + ": " + reason);
        }
    }

    private int footer(List<ClockPath> paths, List<CheckResult> checks) {
        out.println();
        out.println("paths here:");
        String name = "  %-" + ClockPaths.all().stream().filter(p -> !p.hidden()).mapToInt(p -> p.name().length())
                .max().orElse(1) + "s ";
        for (ClockPath p : paths) {
            out.printf(name + "%s%n", p.name(), p.description());
        }
        for (ClockPath p : ClockPaths.all()) {
            if (!p.hidden() && p.unavailableReason().isPresent()) {
                out.printf(name + "unavailable here: %s%n", p.name(), p.unavailableReason().get());
            }
        }
        List<CheckResult> failed = checks.stream().filter(r -> r.status() == Status.FAILED).toList();
        boolean inconclusive = Verifier.anyInconclusive(checks);
        measuredLines(checks);
        for (Status shown : List.of(Status.SKIPPED, Status.INCONCLUSIVE, Status.FAILED)) {
            List<CheckResult> these = checks.stream().filter(r -> r.status() == shown).toList();
            for (CheckResult r : these.stream().limit(8).toList()) {
                out.printf("%-13s%s %s: %s%n", shown + ":", r.mode(), r.subject(), r.summary());
            }
            if (these.size() > 8) {
                out.printf("%-13s... and %d more (tk4j verify all shows every check)%n", shown + ":", these.size() - 8);
            }
        }
        out.println("verify:      " + Verifier.tally(checks) + " (" + modes(checks) + ") -> "
                + (!failed.isEmpty() ? "[FAILED]" : inconclusive ? "[INCONCLUSIVE]: too few samples, not passed"
                        : "every promised property holds [OK]"
                        + (Verifier.count(checks, Status.MEASURED) > 0 ? "; MEASURED: not promised, no verdict" : "")));
        out.println("more:        tk4j info | tk4j bench --html bench.html | tk4j verify all -t 20 | tk4j --help");
        return !failed.isEmpty() ? Tk4j.EXIT_FAILED : inconclusive ? Tk4j.EXIT_SKIPPED : 0;
    }

    /**
     * One line per (mode, path) of MEASURED checks, their violations summed: "MEASURED:    causality ticks on 5
     * clocks: not promised (unordered reads); 0 violations in 1,762,579 checks".
     */
    private void measuredLines(List<CheckResult> checks) {
        Map<String, long[]> byPath = new LinkedHashMap<>();
        for (CheckResult r : checks) {
            if (r.status() == Status.MEASURED) {
                long[] sums = byPath.computeIfAbsent(r.mode() + " " + r.subject().split(" ")[0], k -> new long[3]);
                sums[0]++;
                sums[1] += ((Number) r.metrics().getOrDefault("violations", 0L)).longValue();
                sums[2] += ((Number) r.metrics().getOrDefault("checks", 0L)).longValue();
            }
        }
        byPath.forEach((what, sums) -> out.printf(Locale.ROOT, "%-13s%s on %d clock%s: not promised (unordered reads);"
                + " %,d violation%s in %,d checks%n", "MEASURED:", what, sums[0], sums[0] == 1 ? "" : "s", sums[1],
                sums[1] == 1 ? "" : "s", sums[2]));
    }

    /** The modes that ran, in the order they ran: every mode with a result, skipped ones included. */
    static String modes(List<CheckResult> checks) {
        return String.join(", ", checks.stream().map(CheckResult::mode).distinct().toList());
    }

    private static String verdict(List<CheckResult> checks, ClockId c) {
        List<CheckResult> mine = checks.stream().filter(r -> r.subject().endsWith(" " + c.kernelName())).toList();
        if (mine.isEmpty()) {
            return "-";
        }
        long bad = Verifier.count(mine, Status.FAILED);
        long unsure = Verifier.count(mine, Status.INCONCLUSIVE);
        long measured = Verifier.count(mine, Status.MEASURED);
        long judged = mine.size() - measured;
        String more = measured > 0 ? ", " + measured + " measured" : "";
        return bad > 0 ? "FAILED (" + bad + " of " + judged + more + ")"
                : unsure > 0 ? "INCONCLUSIVE (" + unsure + " of " + judged + more + ")"
                : "OK (" + judged + more + ")";
    }

    private static String shortCall(String call) {
        return call.replace("System.", "");
    }

    private static String res(long ns) {
        if (ns >= 1_000_000 && ns % 1_000_000 == 0) {
            return ns / 1_000_000 + " ms";
        }
        if (ns >= 1_000 && ns % 1_000 == 0) {
            return ns / 1_000 + " us";
        }
        return ns + " ns";
    }
}
