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
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.cli.bench.BenchHtml;
import org.timekeeping4j.cli.bench.ReadBenchmark;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.verify.CausalityCheck;
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

    private final PrintWriter out;
    private final PrintWriter err;
    private final double budget;
    /** The widest line printed: the table wraps into parts (each repeating the clock column) beyond it. */
    private final int width;
    /** With --verbose: the paths' whole descriptions and the modes that ran. */
    private final boolean verbose;

    MainJob(PrintWriter out, PrintWriter err, double budgetSeconds, int width, boolean verbose) {
        this.out = out;
        this.err = err;
        this.budget = budgetSeconds;
        this.width = width;
        this.verbose = verbose;
    }

    /** {@code line} folded to the width, later lines indented by {@code indent} blanks. */
    private void println(String line, int indent) {
        out.println(Terminal.folded(line, width, " ".repeat(indent)));
    }

    /** The screen, or with {@code json} one JSON object: {@code info}, {@code bench} and {@code verify}'s. */
    int run(boolean json) {
        List<ClockPath> paths = ClockPaths.available();
        Optional<ClocksourceCost> cost = ClocksourceCost.here();
        if (!json) {
            header(cost);
        }

        // About 45% of the budget measures, 40% verifies; the rest is JVM start, warm-up and printing.
        long cells = paths.stream().mapToLong(p -> p.clocks().size()).sum();
        double perCell = budget * 0.45 / Math.max(1, cells);
        List<ReadBenchmark.CellResult> bench = BenchCommand.measure(paths, List.of(), perCell * 0.25, perCell * 0.75,
                ReadBenchmark.DEFAULT_BATCH, ReadBenchmark.DEFAULT_ROUNDS, err);
        List<CheckResult> checks;
        try (Progress progress = new Progress(err, "tk4j verify", budget * 0.4)) {
            checks = VerifyCommand.runClockChecks(new Verifier.Settings(paths, List.of(), budget * 0.4, 0, progress));
        }
        if (json) {
            int exit = Verifier.count(checks, Status.FAILED) > 0 ? Tk4j.EXIT_FAILED
                    : Verifier.anyInconclusive(checks) ? Tk4j.EXIT_SKIPPED : 0;
            Map<String, Object> verify = new LinkedHashMap<>();
            verify.put("passed", exit == 0);
            verify.put("exitCode", exit);
            verify.put("checks", checks.stream().map(CheckResult::toMap).toList());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("info", InfoCommand.report(cost));
            m.put("bench", Map.of("cells", bench.stream().map(ReadBenchmark.CellResult::toMap).toList()));
            m.put("verify", verify);
            out.println(Json.write(m, width));
            return exit;
        }
        table(paths, bench, checks);
        return footer(paths, checks);
    }

    private void header(Optional<ClocksourceCost> cost) {
        LinuxTime.Uname u = LinuxTime.uname();
        String cs = KernelInfo.currentClocksource();
        println(String.format("tk4j: %s %s %s, Java %s", u.sysname(), u.release(), u.machine(), Runtime.version()), 6);
        println(String.format("clocksource %s (available: %s)", cs == null || cs.isEmpty() ? "(unknown)" : cs,
                String.join(" ", KernelInfo.availableClocksources())), 6);
        // Where every read is a system call: its cost and the way out, indented under the clocksource line.
        cost.ifPresent(c -> c.lines().forEach(l -> println("  " + l, 4)));
        List<String> flags = KernelInfo.counterFlags();
        SyncStatus s = SyncStatus.read();
        String sync = !s.isAvailable() ? s.availability()
                : (s.isSynchronized() ? "synchronized" : "not synchronized") + ", maxerror "
                        + micros(s.maxErrorMicros()) + ", TAI-UTC " + s.taiOffsetSeconds() + " s";
        println("counter flags: " + (flags.isEmpty() ? "(none)" : String.join(" ", flags)), 6);
        println("NTP: " + sync, 6);
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
            line.add(c.kernelName().substring("CLOCK_".length()));
            line.add(res(KernelClocks.resolutionNanos(c)));
            for (ClockPath p : paths) {
                ReadBenchmark.CellResult r = byCell.get(p.name() + " " + c.kernelName());
                line.add(r == null ? "-" : r.isBaseline() ? BenchHtml.fmt(r.p50Ns()) + " base"
                        : (BenchHtml.fmt(r.p50Ns()) + " " + ratio(r)).stripTrailing());
            }
            line.add(verdict(checks, c));
            cells.add(line);
        }
        List<String> head = new ArrayList<>(List.of("clock", "res"));
        paths.forEach(p -> head.add(p.name()));
        head.add("verify");
        int[] width = new int[head.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = head.get(i).length();
            for (List<String> line : cells) {
                width[i] = Math.max(width[i], line.get(i).length());
            }
        }
        out.println();
        String advice = noisyAdvice(byCell.values(), loadAverage());
        println(String.format(Locale.ROOT, "ns per read (p50), ratio to the JDK's call (base; else nanoTime), "
                + "median of %d rounds; noisy: rounds over %.0f%% apart%s", ReadBenchmark.DEFAULT_ROUNDS,
                ReadBenchmark.NOISY_SPREAD * 100, advice == null ? "" : " (" + advice + ")"), 0);
        boolean first = true;
        for (int[] part : parts(width, this.width)) {
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
     * The table's columns in parts that each fit {@code limit} columns: every part starts with the clock's
     * column, then takes the next columns in order while they fit (at least one, however wide).
     */
    static List<int[]> parts(int[] width, int limit) {
        List<int[]> parts = new ArrayList<>();
        int next = 1;
        while (next < width.length) {
            List<Integer> part = new ArrayList<>(List.of(0));
            int used = width[0];
            while (next < width.length && (part.size() == 1 || used + 2 + width[next] <= limit)) {
                used += 2 + width[next];
                part.add(next++);
            }
            parts.add(part.stream().mapToInt(Integer::intValue).toArray());
        }
        return parts;
    }

    /**
     * "0.86x", the median ratio of the rounds; "noisy" where the rounds are too far apart to rank (a spread that
     * may be wider than the ratio itself says nothing a newcomer can use: tk4j bench prints it).
     */
    static String ratio(ReadBenchmark.CellResult r) {
        if (!r.hasBaseline()) {
            return "";
        }
        double x = r.p50Ratio();
        // Three digits at most, so that a cell stays ten columns wide: 0.86x, 12.3x, 145x.
        return r.noisy() ? "noisy" : String.format(Locale.ROOT, x < 10 ? "%.2fx" : x < 100 ? "%.1fx" : "%.0fx", x);
    }

    /**
     * What to do where speed cells came out noisy, in one paragraph, or null where none did: how many, the load the
     * machine had, and a bench run long enough to rank them (the rounds' spread shrinks about as the root of their
     * number: rounds for the widest spread to fall under the limit, at most 50).
     *
     * @param cells the speed cells (baselines included: never noisy)
     * @param load  the 1-minute load average and the CPUs, "1.93/2 CPUs", or null where unknown
     */
    static String noisyAdvice(java.util.Collection<ReadBenchmark.CellResult> cells, String load) {
        int noisy = 0;
        double widest = 0;
        for (ReadBenchmark.CellResult r : cells) {
            if (r.noisy()) {
                noisy++;
                widest = Math.max(widest, (r.ratioHigh() - r.ratioLow()) / r.p50Ratio());
            }
        }
        if (noisy == 0) {
            return null;
        }
        double factor = widest / ReadBenchmark.NOISY_SPREAD;
        int rounds = (int) Math.min(50, Math.ceil(ReadBenchmark.DEFAULT_ROUNDS * factor * factor));
        return String.format(Locale.ROOT, "%d of %d here%s: ./tk4j bench --rounds %d -t %.1f ranks them", noisy,
                cells.size(), load == null ? "" : ", load " + load, rounds, rounds / 10.0);
    }

    /** {@return the 1-minute load average over the CPUs, "1.93/2 CPUs", or null where /proc does not say} */
    static String loadAverage() {
        try {
            String avg = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
            return avg + "/" + Runtime.getRuntime().availableProcessors() + " CPUs";
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
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
     * The clocks this kernel cannot read, named on one (folded) line: tk4j info has each one's reason.
     */
    private void printUnsupported(Map<ClockId, String> unsupported) {
        if (unsupported.isEmpty()) {
            return;
        }
        List<ClockId> clocks = List.copyOf(unsupported.keySet());
        List<ClockId> aux = clocks.stream().filter(ClockId::isAux).toList();
        List<String> names = new ArrayList<>(clocks.stream().filter(c -> !c.isAux()).map(ClockId::kernelName).toList());
        if (aux.size() > 2) {
            names.add("CLOCK_AUX+" + (aux.get(0).id() - ClockId.AUX_BASE) + "..+"
                    + (aux.get(aux.size() - 1).id() - ClockId.AUX_BASE));
        } else {
            aux.forEach(c -> names.add(c.kernelName()));
        }
        println("  not readable here (tk4j info says why): " + String.join(", ", names), 4);
    }

    private int footer(List<ClockPath> paths, List<CheckResult> checks) {
        out.println();
        out.println("paths here:");
        String name = "  %-" + ClockPaths.all().stream().filter(p -> !p.hidden()).mapToInt(p -> p.name().length())
                .max().orElse(1) + "s ";
        int indent = String.format(name, "").length();
        for (ClockPath p : paths) {
            println(String.format(name + "%s", p.name(), verbose ? p.description() : summary(p.description())),
                    indent);
        }
        for (ClockPath p : ClockPaths.all()) {
            if (!p.hidden() && p.unavailableReason().isPresent()) {
                println(String.format(name + "unavailable here: %s", p.name(), p.unavailableReason().get()), indent);
            }
        }
        List<CheckResult> failed = checks.stream().filter(r -> r.status() == Status.FAILED).toList();
        boolean inconclusive = Verifier.anyInconclusive(checks);
        measuredLines(checks);
        for (Status shown : List.of(Status.NOTICE, Status.SKIPPED, Status.INCONCLUSIVE, Status.FAILED)) {
            List<CheckResult> these = checks.stream().filter(r -> r.status() == shown).toList();
            for (CheckResult r : these.stream().limit(8).toList()) {
                println(String.format("%-12s %s %s: %s", shown + ":", r.mode(), r.subject(), r.summary()), 13);
            }
            if (these.size() > 8) {
                out.printf("%-12s ... and %d more (tk4j verify all shows every check)%n", shown + ":", these.size() - 8);
            }
        }
        // The verdict first, so that it stays on the line's first row however narrow the terminal.
        println("verify:      " + (!failed.isEmpty() ? "[FAILED]" : inconclusive
                ? "[INCONCLUSIVE] too few samples, not passed" : "[OK] every promised property holds") + ": "
                + Verifier.tally(checks) + (verbose ? " (" + modes(checks) + ")" : ""), 13);
        println("more:        tk4j info, tk4j bench --html bench.html, tk4j verify all, --verbose", 13);
        return !failed.isEmpty() ? Tk4j.EXIT_FAILED : inconclusive ? Tk4j.EXIT_SKIPPED : 0;
    }

    /**
     * One line per (mode, path) of MEASURED checks, as a rate with its meaning rather than a raw count of
     * "violations" of a property the path never promised: "MEASURED:    causality on fast-unordered (5 clocks):
     * reordered in 8.2% of cross-thread checks, as unordered reads may be (not promised, no verdict)".
     */
    private void measuredLines(List<CheckResult> checks) {
        Map<String, long[]> byPath = new LinkedHashMap<>();
        for (CheckResult r : checks) {
            if (r.status() == Status.MEASURED) {
                long[] sums = byPath.computeIfAbsent(r.mode() + " on " + r.subject().split(" ")[0], k -> new long[3]);
                sums[0]++;
                sums[1] += ((Number) r.metrics().getOrDefault("violations", 0L)).longValue();
                sums[2] += ((Number) r.metrics().getOrDefault("checks", 0L)).longValue();
            }
        }
        byPath.forEach((what, sums) -> println(String.format(Locale.ROOT, "%-13s%s (%d clock%s): %s", "MEASURED:",
                what, sums[0], sums[0] == 1 ? "" : "s", CausalityCheck.reordered(sums[1], sums[2])), 13));
    }

    /**
     * A path's description without its closing parenthesis, which --verbose prints: "Clocks.nanos: the counter in
     * user space, exact from the kernel's vDSO data (else the kernel's ...)" loses the part in parentheses.
     */
    static String summary(String description) {
        if (!description.endsWith(")")) {
            return description;
        }
        int depth = 0;
        for (int i = description.length() - 1; i >= 0; i--) {
            char ch = description.charAt(i);
            depth += ch == ')' ? 1 : ch == '(' ? -1 : 0;
            if (depth == 0) {
                return i > 0 ? description.substring(0, i).stripTrailing() : description;
            }
        }
        return description;
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
        long judged = mine.size() - Verifier.count(mine, Status.MEASURED);
        // The counts only where a check did not pass: the verdict line under the table tallies them all.
        return bad > 0 ? "FAILED (" + bad + " of " + judged + ")"
                : unsure > 0 ? "INCONCLUSIVE (" + unsure + " of " + judged + ")" : "OK";
    }

    /** "250 us", "12.5 ms", "16 s": a maxerror a newcomer reads at a glance. */
    static String micros(long us) {
        return us < 1_000 ? us + " us" : us < 1_000_000 ? Validate.fmt(Math.round(us / 100.0) / 10.0) + " ms"
                : Validate.fmt(Math.round(us / 100_000.0) / 10.0) + " s";
    }

    static String res(long ns) {
        if (ns >= 1_000_000 && ns % 1_000_000 == 0) {
            return ns / 1_000_000 + " ms";
        }
        if (ns >= 1_000 && ns % 1_000 == 0) {
            return ns / 1_000 + " us";
        }
        return ns + " ns";
    }
}
