package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.verify.AgreementCheck;
import org.timekeeping4j.cli.verify.CausalityCheck;
import org.timekeeping4j.cli.verify.CheckResult;
import org.timekeeping4j.cli.verify.ConsistencyCheck;
import org.timekeeping4j.cli.verify.Progress;
import org.timekeeping4j.cli.verify.SkewCheck;
import org.timekeeping4j.cli.verify.Status;
import org.timekeeping4j.cli.verify.Verifier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tk4j verify MODE}: correctness checks of every clock path, modelled on the kernel's own tests.
 * Without a mode, runs {@code all}.
 *
 * <p>Exit codes: 0 every check passed (a MEASURED figure, of a property the path does not promise, and a NOTICE,
 * of this machine's setup with its fix, neither pass nor fail); 1 a check failed; 2 bad usage (unknown or unavailable path, a clock the path does not serve);
 * 3 not passed, not failed: a check was INCONCLUSIVE (fewer samples than its minimum, even after retrying) or every
 * check was SKIPPED.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Check that every clock path is correct (modes after the kernel's timer selftests and "
                + "vdsotest). Without a mode: all.%n"
                + "Each check needs a minimum of samples (consistency " + ConsistencyCheck.MIN_READS + " reads, "
                + "causality " + CausalityCheck.MIN_CHECKS + " checks, agreement " + AgreementCheck.MIN_READS
                + " reads); a starved cell runs again with more time, then is INCONCLUSIVE, never OK. A property a "
                + "path does not promise (causality on an unordered path) is MEASURED: the figure, no verdict.%n"
                + "Exit: 0 all passed, 1 a check failed, 2 bad usage, 3 inconclusive or skipped (not success).",
        subcommands = {VerifyCommand.Consistency.class, VerifyCommand.Causality.class, VerifyCommand.Agreement.class,
                VerifyCommand.Abi.class, VerifyCommand.Tai.class, VerifyCommand.Skew.class,
                VerifyCommand.All.class})
final class VerifyCommand implements Callable<Integer> {

    /** Exit code of a check that could not run here (SKIPPED is not success). */
    static final int EXIT_SKIPPED = Tk4j.EXIT_SKIPPED;

    @Spec
    CommandSpec spec;

    /** {@code tk4j verify -t 5}: the options of {@code all}, which runs without a mode. */
    @Mixin
    Options options;

    @Mixin
    PathOption path;

    @Override
    public Integer call() {
        All all = new All();
        all.options = options;
        all.path = path;
        all.spec = spec;
        return all.call();
    }

    /** Options every mode shares. */
    static final class Options {
        @Option(names = {"-c", "--clock"}, paramLabel = "CLOCK", converter = ClockConverter.class,
                description = "Clock to check (repeatable): MONOTONIC, CLOCK_REALTIME, CLOCK_AUX+0, 4, ... Default: "
                        + "every clock each path serves.")
        List<ClockId> clocks = new ArrayList<>();

        @Option(names = {"-t", "--duration"}, paramLabel = "SECONDS",
                description = "Total run time of the mode, shared by its (path, clock) cells: more than 0, at most "
                        + "3600 (default ${DEFAULT-VALUE}).",
                defaultValue = "2")
        double seconds;

        @Option(names = "--threads", paramLabel = "N",
                description = "Threads per cell (causality: one publisher plus N-1 readers), 1 to twice the CPUs "
                        + "(at least 8). Default: 2 (agreement 1).")
        Integer threads;

        @Option(names = "--json", description = "Print one JSON object instead of the report.")
        boolean json;

        @Option(names = "--min-samples", paramLabel = "N",
                description = "Every timed check's minimum sample count for OK, instead of its own (consistency "
                        + ConsistencyCheck.MIN_READS + " reads, causality " + CausalityCheck.MIN_CHECKS
                        + " checks, agreement " + AgreementCheck.MIN_READS + " reads): 1 to " + MAX_MIN_SAMPLES
                        + ". For a machine too slow to reach them (an emulated CPU runs 25-100x slower); every "
                        + "result and the JSON then say so.")
        Long minSamples;
    }

    /** --path, of every mode that reads the clock paths (not skew, whose subject is the simulated timekeeper). */
    static final class PathOption {
        @Option(names = "--path", paramLabel = "PATH",
                description = "Path to check (repeatable): kernel, syscall, jdk, jdk-millis, fast, ticks, "
                        + "fast-unordered, snapshot. Default: every path available here.")
        List<String> paths = new ArrayList<>();
    }

    /** A mode that checks the clock paths: its --path picks them. */
    abstract static class PathMode extends Mode {
        @Mixin
        PathOption path;

        PathMode(Function<Verifier.Settings, List<CheckResult>> run) {
            super(run);
        }

        @Override
        List<String> pathNames() {
            return path.paths;
        }
    }

    /** The largest --min-samples: far more than any run could gather, so only a typo is refused. */
    static final long MAX_MIN_SAMPLES = 1_000_000_000L;

    /** The shared run-and-print of every mode; a mode is its {@code @Command} (name, help) and its run. */
    abstract static class Mode implements Callable<Integer> {
        @Mixin
        Options options;

        @Spec
        CommandSpec spec;

        private final Function<Verifier.Settings, List<CheckResult>> run;

        Mode(Function<Verifier.Settings, List<CheckResult>> run) {
            this.run = run;
        }

        /** The mode's name: its subcommand's. */
        String mode() {
            return spec.name();
        }

        /**
         * {@code tk4j verify -t 5 consistency}: options given before the mode belong to {@code verify} (that is,
         * to {@code all}) and would be dropped silently; say where they go instead.
         */
        private void refuseOptionsBeforeTheMode() {
            CommandLine parent = spec.commandLine().getParent();
            if (parent == null || !(parent.getCommandSpec().userObject() instanceof VerifyCommand)
                    || parent.getParseResult() == null) {
                return;
            }
            List<String> before = parent.getParseResult().matchedOptions().stream()
                    .filter(o -> !o.inherited() && o.scopeType() != CommandLine.ScopeType.INHERIT)
                    .map(o -> o.longestName()).distinct().toList();
            if (!before.isEmpty()) {
                throw Validate.usage(spec, String.join(", ", before) + " goes after the mode: tk4j verify " + mode()
                        + " " + before.get(0) + " ...");
            }
        }

        List<CheckResult> run(Verifier.Settings settings) {
            return run.apply(settings);
        }

        /** Checks this mode's own options (exit 2 on a bad one); the shared ones are checked by {@link #call}. */
        void validate() {}

        /** The paths named with --path (none: every available one). */
        List<String> pathNames() {
            return List.of();
        }

        /** The paths this mode runs on. */
        List<ClockPath> paths() {
            List<ClockPath> paths = resolvePaths(pathNames());
            checkServed(paths, options.clocks);
            return paths;
        }

        /** The planned duration, for the progress line. */
        double plannedSeconds() {
            return options.seconds;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            refuseOptionsBeforeTheMode();
            Validate.seconds(spec, "--duration", options.seconds, 0, false, Validate.MAX_RUN_SECONDS);
            if (options.threads != null) {
                Validate.range(spec, "--threads", options.threads, 1, Validate.maxThreads());
            }
            if (options.minSamples != null) {
                Validate.range(spec, "--min-samples", options.minSamples, 1, MAX_MIN_SAMPLES);
            }
            validate();
            List<ClockPath> paths;
            try {
                paths = paths();
            } catch (IllegalArgumentException e) {
                throw Validate.usage(spec, e.getMessage());
            }
            int threads = options.threads == null ? 0 : options.threads;
            long minSamples = options.minSamples == null ? 0 : options.minSamples;
            List<CheckResult> results;
            try (Progress progress = new Progress(err, "tk4j verify " + mode(), plannedSeconds())) {
                results = run(new Verifier.Settings(paths, options.clocks, options.seconds, threads, progress,
                        minSamples));
            }
            return report(out, mode(), results, options.json, exitCode(results), minSamples, Terminal.width(spec));
        }

        int exitCode(List<CheckResult> results) {
            return VerifyCommand.exitCode(results);
        }
    }

    /** 1 on a failure, else 3 when nothing was checked, a check was inconclusive or every check skipped, else 0. */
    static int exitCode(List<CheckResult> results) {
        if (Verifier.anyFailed(results)) {
            return Tk4j.EXIT_FAILED;
        }
        boolean allSkipped = results.stream().allMatch(r -> r.status() == Status.SKIPPED); // true for none
        return Verifier.anyInconclusive(results) || allSkipped ? EXIT_SKIPPED : 0;
    }

    static int report(PrintWriter out, String mode, List<CheckResult> results, boolean json, int exit) {
        return report(out, mode, results, json, exit, 0, Terminal.DEFAULT);
    }

    /** As above; {@code minSamples} (0: the checks' defaults) set by --min-samples is said in both forms. */
    static int report(PrintWriter out, String mode, List<CheckResult> results, boolean json, int exit,
                      long minSamples, int width) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mode", mode);
            m.put("passed", exit == 0);
            m.put("exitCode", exit);
            if (minSamples > 0) {
                m.put("minSamples", minSamples);
            }
            m.put("checks", results.stream().map(CheckResult::toMap).toList());
            out.println(Json.write(m, width));
        } else {
            Verifier.print(out, results, width);
            out.println("verify " + mode + ": " + Verifier.tally(results)
                    + (exit == 0 ? "" : exit == EXIT_SKIPPED ? " (exit 3: " + (results.isEmpty() ? "nothing checked"
                    : Verifier.anyInconclusive(results) ? "inconclusive" : "skipped") + ", not passed)"
                    : " (exit " + exit + ")"));
            if (minSamples > 0) {
                out.println(Terminal.folded(minimumLine(minSamples), width, "  "));
            }
        }
        return exit;
    }

    /** The line under the tally of a run whose minimum was set: never a silent change of what OK means. */
    static String minimumLine(long minSamples) {
        return String.format("minimum samples per check: %,d, set by --min-samples (defaults: consistency %,d "
                        + "reads, causality %,d checks, agreement %,d reads)", minSamples, ConsistencyCheck.MIN_READS,
                CausalityCheck.MIN_CHECKS, AgreementCheck.MIN_READS);
    }

    /** The named paths (all available ones when none is named). */
    static List<ClockPath> resolvePaths(List<String> names) {
        if (names.isEmpty()) {
            return ClockPaths.available();
        }
        List<ClockPath> paths = new ArrayList<>();
        for (String n : names) {
            ClockPath p = ClockPaths.require(n);
            if (!paths.contains(p)) {
                paths.add(p);
            }
        }
        return paths;
    }

    /**
     * Every explicitly requested clock must be served by at least one requested path; a clock this machine cannot
     * read at all says why (AUX clock disabled, no alarm-capable RTC, ...).
     */
    static void checkServed(List<ClockPath> paths, List<ClockId> clocks) {
        for (ClockId c : clocks) {
            java.util.Optional<String> unreadable = org.timekeeping4j.Clocks.whyUnsupported(c);
            if (unreadable.isPresent()) {
                throw new IllegalArgumentException(unreadable.get());
            }
            if (paths.stream().noneMatch(p -> p.serves(c))) {
                throw new IllegalArgumentException(c.kernelName() + " is served by none of the paths "
                        + paths.stream().map(ClockPath::name).toList()
                        + (paths.size() == 1 ? "" : " (pick one with --path)"));
            }
        }
    }

    @Command(name = "consistency", mixinStandardHelpOptions = true,
            description = "inconsistency-check: per thread, 64 stamps back to back, then every adjacent pair must "
                    + "not go backwards. Prints the 64 stamps, the bad pair marked, 'Delta: N ns' and [FAILED].")
    static final class Consistency extends PathMode {
        Consistency() {
            super(Verifier::consistency);
        }
    }

    @Command(name = "causality", mixinStandardHelpOptions = true,
            description = "One thread publishes stamps (release), the others read one (acquire) and then the clock: "
                    + "the clock must not be earlier than the stamp.")
    static final class Causality extends PathMode {
        Causality() {
            super(Verifier::causality);
        }

        @Override
        void validate() {
            for (ClockId c : options.clocks) {
                if (!CausalityCheck.accepts(c)) {
                    throw Validate.usage(spec, "causality is not for " + c.kernelName() + ": a thread's own clock");
                }
            }
        }
    }

    @Command(name = "agreement", mixinStandardHelpOptions = true,
            description = "Every read of a path between two kernel reads: excursion outside that bracket, "
                    + "p50/p99/max, within the path's bound (0 for kernel and syscall).")
    static final class Agreement extends PathMode {
        Agreement() {
            super(Verifier::agreement);
        }
    }

    @Command(name = "abi", mixinStandardHelpOptions = true,
            description = "vdsotest abi: bogus ids refused naming the id (kernel: EINVAL), unsupported clocks refused "
                    + "cleanly, getres equal across paths and constant, every timespec normalised.")
    static final class Abi extends PathMode {
        Abi() {
            super(Verifier::abi);
        }

        @Override
        void validate() {
            if (options.minSamples != null) {
                throw Validate.usage(spec, "--min-samples does not apply to abi: it makes a fixed number of calls "
                        + "(use it with consistency, causality, agreement, skew or all)");
            }
        }

        @Override
        double plannedSeconds() {
            return 0;
        }
    }

    @Command(name = "tai", mixinStandardHelpOptions = true,
            description = "CLOCK_TAI against the leap-second list: OK where the kernel's TAI offset is what a current "
                    + "list gives; else a NOTICE with the fix (a daemon sets the offset: chrony's leapsectz "
                    + "right/UTC), never a failure. Reads adjtimex and the list; sets nothing.")
    static final class Tai extends Mode {
        Tai() {
            super(Verifier::tai);
        }

        @Override
        void validate() {
            if (options.minSamples != null || !options.clocks.isEmpty()) {
                throw Validate.usage(spec, (options.minSamples != null ? "--min-samples" : "-c") + " does not"
                        + " apply to tai: it checks CLOCK_TAI's offset once");
            }
        }

        @Override
        double plannedSeconds() {
            return 0;
        }
    }

    @Command(name = "skew", mixinStandardHelpOptions = true,
            description = "skew_consistency: flips the simulated timekeeper's frequency by +/-PPM every FLIP ms "
                    + "while checking consistency of its clocks (-c picks among them; --path does not apply: the "
                    + "timekeeper is the subject).")
    static final class Skew extends Mode {
        /** The kernel's limit on a frequency adjustment (adjtimex MAXFREQ): 500 ppm. */
        static final long MAX_PPM = 500;

        /** The flip period when none is given, shortened to a tenth of a shorter run. */
        static final double DEFAULT_FLIP_MS = 500;

        @Option(names = "--flip-ms", paramLabel = "MS",
                description = "Frequency flip period, ms: more than 0, at most a tenth of the run (-t) and at most "
                        + "60000. Default: 500, or a tenth of the run if that is shorter.")
        Double flipMillis;

        @Option(names = "--ppm", paramLabel = "PPM", defaultValue = "500",
                description = "Frequency offset each way, ppm: 1..500, the kernel's adjtimex limit "
                        + "(default ${DEFAULT-VALUE}).")
        long ppm;

        /** Not listed: the check reads no clock path; given anyway, it is refused with the reason. */
        @Option(names = "--path", hidden = true)
        List<String> paths = new ArrayList<>();

        @Override
        void validate() {
            Validate.range(spec, "--ppm", ppm, 1, MAX_PPM);
            if (!paths.isEmpty()) {
                throw Validate.usage(spec, "--path is not for skew: it reads simulated clocks (pick them with -c)");
            }
            if (flipMillis == null) {
                return; // the default: shortened to a tenth of a short run
            }
            Validate.positive(spec, "--flip-ms", flipMillis, 60_000, "ms");
            double most = options.seconds * 100; // a tenth of the run, in ms: at least ten flips per run
            if (flipMillis > most) {
                throw Validate.usage(spec, String.format(java.util.Locale.ROOT, "--flip-ms %s: at most %s ms, a tenth of "
                        + "-t %s s (ten flips a run)", Validate.fmt(flipMillis), Validate.fmt(most),
                        Validate.fmt(options.seconds)));
            }
        }

        /** No clock path: the simulated timekeeper's clocks, of which -c must name only ones it serves. */
        @Override
        List<ClockPath> paths() {
            SkewCheck.checkServed(options.clocks);
            return ClockPaths.available();
        }

        Skew() {
            super(null); // run is overridden: it reads this mode's own options
        }

        @Override
        List<CheckResult> run(Verifier.Settings s) {
            return Verifier.skew(s, flipNanos(flipMillis == null ? DEFAULT_FLIP_MS : flipMillis, s.seconds()),
                    ppm * 1000);
        }
    }

    /** The flip period: {@code flipMillis}, at most a tenth of the run (only a default is ever shortened). */
    static long flipNanos(double flipMillis, double seconds) {
        return (long) Math.min(flipMillis * 1e6, seconds * 1e8);
    }

    @Command(name = "all", mixinStandardHelpOptions = true,
            description = "Every mode, one after the other, sharing --duration (default 2 s in all). Causality on a "
                    + "path that promises no cross-thread order is MEASURED: reported, neither passed nor failed.")
    static final class All extends PathMode {
        All() {
            super(VerifyCommand::runAll);
        }

        /** "all", also when it runs as {@code tk4j verify} without a mode. */
        @Override
        String mode() {
            return "all";
        }
    }

    /** Every mode with a quarter of the time each (abi and tai untimed). */
    static List<CheckResult> runAll(Verifier.Settings s) {
        List<CheckResult> results = runClockChecks(s);
        results.addAll(Verifier.tai(s));
        return results;
    }

    /**
     * Every mode but tai: the main job's, whose one screen says CLOCK_TAI's offset on its NTP line and leaves the
     * verdict to {@code tk4j info} and {@code tk4j verify}.
     */
    static List<CheckResult> runClockChecks(Verifier.Settings s) {
        Verifier.Settings quarter = s.withSeconds(s.seconds() / 4);
        List<CheckResult> results = new ArrayList<>();
        results.addAll(Verifier.consistency(quarter));
        results.addAll(Verifier.causality(quarter));
        results.addAll(Verifier.agreement(quarter));
        results.addAll(Verifier.abi(quarter));
        results.addAll(Verifier.skew(quarter, flipNanos(Skew.DEFAULT_FLIP_MS, quarter.seconds()), 500_000));
        return results;
    }
}
