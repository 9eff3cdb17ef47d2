package org.timekeeping4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.bench.BenchHtml;
import org.timekeeping4j.cli.bench.BenchTable;
import org.timekeeping4j.cli.bench.ReadBenchmark;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.verify.Progress;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tk4j bench}: ns per read for every clock through every path, against the JDK's call of its kind. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "ns per call (mean, p50, p99 over batches) for every clock x every path, with the ratio of "
                + "p50s to the JDK's call of the clock's kind in the same run (vdsotest bench): System.nanoTime or "
                + "Instant.now for wall and monotonic clocks, the MXBeans' CPU time for CPU-time clocks, no ratio "
                + "where the JDK has none. The median over alternating rounds, with the lowest and highest round's. "
                + "Progress on stderr.")
final class BenchCommand implements Callable<Integer> {

    @Option(names = {"-c", "--clock"}, paramLabel = "CLOCK", converter = ClockConverter.class,
            description = "Clock to measure (repeatable). Default: every clock each path serves.")
    List<ClockId> clocks = new ArrayList<>();

    @Option(names = "--path", paramLabel = "PATH",
            description = "Path to measure (repeatable): kernel, syscall, jdk, jdk-millis, fast, ticks, "
                    + "fast-unordered, snapshot. Default: every path available here.")
    List<String> paths = new ArrayList<>();

    @Option(names = "--warmup", paramLabel = "SECONDS", defaultValue = "0.1",
            description = "Unrecorded warm-up per cell, seconds: 0..60 (default ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = {"-t", "--duration"}, paramLabel = "SECONDS", defaultValue = "0.5",
            description = "Recorded time per cell, seconds, shared by its rounds: more than 0, at most 60 (default "
                    + "${DEFAULT-VALUE}).")
    double duration;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + ReadBenchmark.DEFAULT_ROUNDS,
            description = "Rounds, each measuring every cell once in alternating order: 1..100 (default "
                    + "${DEFAULT-VALUE}). The ratio shown is the rounds' median, with their lowest and highest.")
    int rounds;

    /** The most calls one batch may time: more only hides the distribution. */
    static final int MAX_BATCH = 1_000_000;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Calls timed together: 1..1000000 (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML page with one "
            + "bar chart per clock (its directory must exist; checked before the run).")
    Path html;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Validate.seconds(spec, "--warmup", warmup, 0, true, 60);
        Validate.seconds(spec, "--duration", duration, 0, false, 60);
        Validate.range(spec, "--batch", batch, 1, MAX_BATCH);
        Validate.range(spec, "--rounds", rounds, 1, 100);
        if (html != null) {
            Validate.outputFile(spec, "--html", html);
        }
        List<ClockPath> selected;
        try {
            selected = VerifyCommand.resolvePaths(paths);
            VerifyCommand.checkServed(selected, clocks);
        } catch (IllegalArgumentException e) {
            throw Validate.usage(spec, e.getMessage());
        }
        List<ReadBenchmark.CellResult> results = measure(selected, clocks.stream().distinct().toList(), warmup,
                duration, batch, rounds, err);
        Map<String, Object> machine = machine(batch);
        if (html != null) {
            try {
                Files.writeString(html, BenchHtml.render(results, machine, now()), StandardCharsets.UTF_8);
            } catch (IOException e) {
                // Checked before the run; this is a change since (a full disk, a directory removed).
                err.println("tk4j bench: cannot write --html " + html + ": " + reason(e));
                return Tk4j.EXIT_FAILED;
            }
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>(machine);
            m.put("date", now());
            m.put("warmupS", warmup);
            m.put("durationS", duration);
            m.put("rounds", rounds);
            m.put("cells", results.stream().map(ReadBenchmark.CellResult::toMap).toList());
            out.println(Json.write(m, Terminal.width(spec)));
        } else {
            BenchTable.print(out, results, Terminal.width(spec), verbose());
            if (html != null) {
                out.println("wrote " + html);
            }
        }
        return 0;
    }

    /** Whether --verbose was given (tk4j's option, inherited by every command). */
    private boolean verbose() {
        for (var p = spec.root().commandLine().getParseResult(); p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /** What went wrong, in words: NIO's exceptions carry only the path as their message. */
    static String reason(IOException e) {
        String kind = switch (e) {
            case java.nio.file.NoSuchFileException x -> "no such file or directory";
            case java.nio.file.AccessDeniedException x -> "permission denied";
            case java.nio.file.FileSystemException x when x.getReason() != null -> x.getReason();
            default -> e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        };
        return kind;
    }

    static List<ReadBenchmark.CellResult> measure(List<ClockPath> paths, List<ClockId> clocks, double warmup,
                                                  double duration, int batch, int rounds, PrintWriter err) {
        long cells = paths.stream().mapToLong(p -> clocks.isEmpty() ? p.clocks().size()
                : clocks.stream().filter(p::serves).count()).sum();
        try (Progress progress = new Progress(err, "tk4j bench", cells * (warmup * 1.25 + duration) + 0.5)) {
            return ReadBenchmark.run(paths, clocks, (long) (warmup * 1e9), (long) (duration * 1e9), batch, rounds,
                    progress);
        }
    }

    static Map<String, Object> machine(int batch) {
        Map<String, Object> m = new LinkedHashMap<>();
        LinuxTime.Uname u = LinuxTime.uname();
        m.put("kernel", u.sysname() + " " + u.release());
        m.put("machine", u.machine());
        m.put("clocksource", KernelInfo.currentClocksource());
        m.put("java", Runtime.version().toString());
        m.put("batch", batch);
        return m;
    }

    private static String now() {
        return ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    }
}
