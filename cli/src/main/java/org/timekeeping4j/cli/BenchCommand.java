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

/** {@code tk4j bench}: ns per read for every clock through every path, against the JDK in the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "ns per call (mean, p50, p99 over batches) for every clock x every path, with the ratio to the "
                + "JDK's call in the same run (vdsotest bench). Progress on stderr.")
final class BenchCommand implements Callable<Integer> {

    @Option(names = {"-c", "--clock"}, paramLabel = "CLOCK", converter = ClockConverter.class,
            description = "Clock to measure (repeatable). Default: every clock each path serves.")
    List<ClockId> clocks = new ArrayList<>();

    @Option(names = "--path", paramLabel = "PATH",
            description = "Path to measure (repeatable). Default: every path available here.")
    List<String> paths = new ArrayList<>();

    @Option(names = "--warmup", paramLabel = "SECONDS", defaultValue = "0.1",
            description = "Unrecorded warm-up per cell, seconds (default ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "0.5",
            description = "Recorded time per cell, seconds (default ${DEFAULT-VALUE}).")
    double duration;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Calls timed together (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML page with one "
            + "bar chart per clock.")
    Path html;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<ClockPath> selected;
        try {
            selected = VerifyCommand.resolvePaths(paths);
            VerifyCommand.checkServed(selected, clocks);
        } catch (IllegalArgumentException e) {
            err.println("tk4j bench: " + e.getMessage());
            return Tk4j.EXIT_USAGE;
        }
        if (warmup < 0 || duration <= 0 || batch < 1) {
            err.println("tk4j bench: --warmup must be >= 0, --duration > 0 and --batch >= 1");
            return Tk4j.EXIT_USAGE;
        }
        List<ReadBenchmark.CellResult> results = measure(selected, clocks, warmup, duration, batch, err);
        Map<String, Object> machine = machine(batch);
        if (html != null) {
            Files.writeString(html, BenchHtml.render(results, machine, now()), StandardCharsets.UTF_8);
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>(machine);
            m.put("date", now());
            m.put("warmupS", warmup);
            m.put("durationS", duration);
            m.put("cells", results.stream().map(ReadBenchmark.CellResult::toMap).toList());
            out.println(Json.write(m));
        } else {
            BenchTable.print(out, results);
            if (html != null) {
                out.println("wrote " + html);
            }
        }
        return 0;
    }

    static List<ReadBenchmark.CellResult> measure(List<ClockPath> paths, List<ClockId> clocks, double warmup,
                                                  double duration, int batch, PrintWriter err) {
        long cells = paths.stream().mapToLong(p -> clocks.isEmpty() ? p.clocks().size()
                : clocks.stream().filter(p::serves).count()).sum();
        try (Progress progress = new Progress(err, "tk4j bench", cells * (warmup * 1.25 + duration) + 0.5)) {
            return ReadBenchmark.run(paths, clocks, (long) (warmup * 1e9), (long) (duration * 1e9), batch, progress);
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
