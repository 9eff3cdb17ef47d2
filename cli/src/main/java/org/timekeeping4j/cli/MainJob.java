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
 * <p>Exit 0 when every check passed, 1 when one failed.
 */
final class MainJob {

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
                ReadBenchmark.DEFAULT_BATCH, err);
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
        out.println();
        out.println("ns per read (median of batches) and ratio to the JDK's call in the same run; verify: checks passed");
        StringBuilder head = new StringBuilder(String.format("%-26s %6s", "clock", "res"));
        for (ClockPath p : paths) {
            head.append(String.format(" %-16s", p.name()));
        }
        out.println(head.append(" verify"));
        Map<ClockId, String> unsupported = new LinkedHashMap<>();
        for (ClockId c : ClockId.values()) {
            Optional<String> why = Clocks.whyUnsupported(c);
            if (why.isPresent()) {
                unsupported.put(c, why.get());
                continue;
            }
            StringBuilder row = new StringBuilder(String.format("%-26s %6s", c.kernelName(),
                    res(Clocks.resolutionNanos(c))));
            for (ClockPath p : paths) {
                ReadBenchmark.CellResult r = byCell.get(p.name() + " " + c.kernelName());
                String cellText = r == null ? "-"
                        : r.call().equals(r.baselineCall()) && p == ClockPaths.JDK
                        ? BenchHtml.fmt(r.p50Ns()) + " " + shortCall(r.call())
                        : String.format(Locale.ROOT, "%s %.2fx", BenchHtml.fmt(r.p50Ns()), r.p50Ratio());
                row.append(String.format(" %-16s", cellText));
            }
            row.append(' ').append(verdict(checks, c));
            out.println(row);
        }
        printUnsupported(unsupported);
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
        for (ClockPath p : paths) {
            out.printf("  %-11s %s%n", p.name(), p.description());
        }
        for (ClockPath p : ClockPaths.all()) {
            if (!p.hidden() && p.unavailableReason().isPresent()) {
                out.printf("  %-11s unavailable here: %s%n", p.name(), p.unavailableReason().get());
            }
        }
        List<CheckResult> failed = checks.stream().filter(r -> r.status() == Status.FAILED).toList();
        for (CheckResult r : checks) {
            if (r.status() == Status.SKIPPED) {
                out.println("SKIPPED:     " + r.summary());
            }
        }
        for (CheckResult r : failed.stream().limit(8).toList()) {
            out.println("FAILED:      " + r.mode() + " " + r.subject() + ": " + r.summary());
        }
        out.println("verify:      " + Verifier.tally(checks) + " (" + modes(checks) + ") -> "
                + (failed.isEmpty() ? "all correct [OK]" : "[FAILED]"));
        out.println("more:        tk4j info | tk4j bench --html bench.html | tk4j verify all -t 20 | tk4j --help");
        return failed.isEmpty() ? 0 : Tk4j.EXIT_FAILED;
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
        long bad = mine.stream().filter(r -> r.status() == Status.FAILED).count();
        return bad == 0 ? "OK (" + mine.size() + ")" : "FAILED (" + bad + " of " + mine.size() + ")";
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
