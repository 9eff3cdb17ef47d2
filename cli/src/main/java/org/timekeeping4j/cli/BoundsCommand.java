package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.TimeBounds;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.timekeeping4j.cli.text.Prose;

/** {@code tk4j bounds}: an interval that contains true time, from the process's bounded clock or a segment. */
@Command(name = "bounds", mixinStandardHelpOptions = true,
        description = "Earliest and latest possible true time (TrueTime-style), from the best source present: "
                + "a ClockBound v2 segment (default /var/run/clockbound/shm0), else chronyd, else a VMClock "
                + "page's own time, else adjtimex's maxerror (-Dtimekeeping4j.bounds chooses).%n"
                + "--watch prints one line per change of source, status or width class, with the UTC time.%n"
                + "Exit: 0 bounds printed (or watched), 2 bad usage, 4 the segment named is missing or malformed.")
final class BoundsCommand implements Callable<Integer> {

    @Option(names = "--shm", paramLabel = "PATH",
            description = "ClockBound segment to read; it must exist (without this option the default is used "
                    + "when present).")
    Path shm;

    @Option(names = "--json", description = "Print one JSON object instead of the lines (nanoseconds since the "
            + "epoch; null for an unbounded side).")
    boolean json;

    @Option(names = "--watch", description = "Read the bounds every --interval and print one line per change of "
            + "source, status or width class (the half-width's power of ten: <1us, <10us, ..., >=100s, unbounded), "
            + "with the UTC time; until interrupted, or for --duration.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "MS",
            description = "With --watch: how often to read, 1..60000 ms (default " + DEFAULT_INTERVAL_MILLIS + ").")
    Long intervalMillis;

    @Option(names = {"-t", "--duration"}, paramLabel = "SECONDS",
            description = "With --watch: how long to watch, more than 0, at most 3600 (default: until interrupted).")
    Double seconds;

    @Spec
    CommandSpec spec;

    static final long DEFAULT_INTERVAL_MILLIS = 100;

    /** A watch line's time: UTC, to the microsecond, fixed width. */
    private static final DateTimeFormatter UTC =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** Width classes: the half-width below each bound, ns (then ">=100s", then "unbounded"). */
    private static final long[] CLASS_BELOW = {1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
            1_000_000_000L, 10_000_000_000L, 100_000_000_000L};
    private static final String[] CLASS_NAMES = {"<1us", "<10us", "<100us", "<1ms", "<10ms", "<100ms", "<1s",
            "<10s", "<100s", ">=100s", "unbounded"};

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (watch) {
            if (json) {
                throw Validate.usage(spec, "--json does not apply to --watch: it prints one line per change");
            }
            if (intervalMillis != null) {
                Validate.range(spec, "--interval", intervalMillis, 1, 60_000);
            }
            if (seconds != null) {
                Validate.seconds(spec, "--duration", seconds, 0, false, Validate.MAX_RUN_SECONDS);
            }
        } else if (intervalMillis != null || seconds != null) {
            throw Validate.usage(spec, (intervalMillis != null ? "--interval" : "--duration")
                    + " applies only with --watch");
        }
        try (BoundedClock clock = shm != null ? BoundedClock.clockBound(shm) : BoundedClock.system()) {
            if (watch) {
                return watch(clock, out);
            }
            TimeBounds b = clock.now(new TimeBounds());
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("earliestNanos", bounded(b.earliestNanos()));
                m.put("latestNanos", bounded(b.latestNanos()));
                m.put("widthNanos", bounded(b.widthNanos()));
                m.put("status", b.status().name());
                m.put("source", new Prose(clock.description()));
                out.println(Json.write(m, Terminal.width(spec)));
            } else {
                out.printf("earliest  %s%n", format(b.earliestNanos()));
                out.printf("latest    %s%n", format(b.latestNanos()));
                out.printf("width     %s%n", b.widthNanos() == Long.MAX_VALUE ? "unbounded" : b.widthNanos() + " ns");
                out.printf("status    %s%n", b.status());
                out.println(Terminal.folded("source    " + clock.description(), Terminal.width(spec), "          "));
            }
            out.flush();
        }
        return 0;
    }

    /**
     * Reads {@code clock} every interval and prints its state first, then one line per change of source, status
     * or width class: {@code 2026-12-06T17:12:03.123456Z  SYNCHRONIZED  <1ms (512.301 us)  adjtimex, ...}.
     */
    private int watch(BoundedClock clock, PrintWriter out) {
        long interval = intervalMillis != null ? intervalMillis : DEFAULT_INTERVAL_MILLIS;
        long end = seconds == null ? 0 : System.nanoTime() + (long) (seconds * 1e9);
        TimeBounds b = new TimeBounds();
        String last = null;
        while (true) {
            String key;
            String line;
            try {
                clock.now(b);
                int c = widthClass(b);
                String description = clock.description();
                key = sourceOf(description) + " " + b.status() + " " + c;
                line = String.format("%s  %-12s  %s  %s", UTC.format(Instant.ofEpochSecond(0, b.nanos())),
                        b.status(), c == CLASS_NAMES.length - 1 ? "unbounded" : CLASS_NAMES[c] + " ("
                                + halfWidth(b) + ")", description);
            } catch (IllegalStateException e) { // the source's data unusable now (a daemon restarting)
                key = e.getMessage();
                line = String.format("%s  %-12s  %s", UTC.format(Instant.ofEpochSecond(0,
                        KernelClocks.nanos(ClockId.REALTIME))), "UNREADABLE", e.getMessage());
            }
            if (!key.equals(last)) {
                out.println(Terminal.folded(line, Terminal.width(spec), "    "));
                out.flush();
                last = key;
            }
            long left = seconds == null ? interval : (end - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return 0;
            }
            try {
                Thread.sleep(Math.min(interval, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0; // interrupted: the watch ends, as asked
            }
        }
    }

    /** The index in {@link #CLASS_NAMES} of the bounds' half-width: its power of ten, or unbounded. */
    static int widthClass(TimeBounds b) {
        if (b.earliestNanos() == Long.MIN_VALUE || b.latestNanos() == Long.MAX_VALUE) {
            return CLASS_NAMES.length - 1;
        }
        long half = b.widthNanos() / 2;
        int c = 0;
        while (c < CLASS_BELOW.length && half >= CLASS_BELOW[c]) {
            c++;
        }
        return c;
    }

    /** The half-width in its unit: "512.301 us", "3.5 ms". */
    private static String halfWidth(TimeBounds b) {
        double half = b.widthNanos() / 2.0;
        return half < 1_000 ? Validate.fmt(half) + " ns"
                : half < 1_000_000 ? String.format(java.util.Locale.ROOT, "%.3f us", half / 1e3)
                : half < 1_000_000_000 ? String.format(java.util.Locale.ROOT, "%.3f ms", half / 1e6)
                : String.format(java.util.Locale.ROOT, "%.3f s", half / 1e9);
    }

    /** The source a description names, without what it said: "adjtimex" of "adjtimex, served at ...: ...". */
    static String sourceOf(String description) {
        int comma = description.indexOf(", ");
        return comma < 0 ? description : description.substring(0, comma);
    }

    private static Long bounded(long nanos) {
        return nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE ? null : nanos;
    }

    private static String format(long nanos) {
        if (nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE) {
            return "unbounded";
        }
        return Instant.ofEpochSecond(0, nanos) + " (" + PhcCommand.seconds(nanos) + ")";
    }
}
