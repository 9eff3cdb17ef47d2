package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.TimeBounds;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tk4j bounds}: an interval that contains true time, from ClockBound or adjtimex. */
@Command(name = "bounds", mixinStandardHelpOptions = true,
        description = "Earliest and latest possible true time (TrueTime-style): from a ClockBound v2 segment "
                + "when one exists (default /var/run/clockbound/shm0), else from adjtimex's maxerror.%n"
                + "Exit: 0 bounds printed, 2 bad usage, 4 the segment named is missing or malformed.")
final class BoundsCommand implements Callable<Integer> {

    @Option(names = "--shm", paramLabel = "PATH",
            description = "ClockBound segment to read; it must exist (without this option the default is used "
                    + "when present).")
    Path shm;

    @Option(names = "--json", description = "Print one JSON object instead of the lines (nanoseconds since the "
            + "epoch; null for an unbounded side).")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (BoundedClock clock = shm != null ? BoundedClock.clockBound(shm) : BoundedClock.system()) {
            TimeBounds b = clock.now(new TimeBounds());
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("earliestNanos", bounded(b.earliestNanos()));
                m.put("latestNanos", bounded(b.latestNanos()));
                m.put("widthNanos", bounded(b.widthNanos()));
                m.put("status", b.status().name());
                m.put("source", clock.description());
                out.println(Json.write(m));
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

    private static Long bounded(long nanos) {
        return nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE ? null : nanos;
    }

    private static String format(long nanos) {
        if (nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE) {
            return "unbounded";
        }
        return Instant.ofEpochSecond(0, nanos) + " (" + Math.floorDiv(nanos, 1_000_000_000L) + "."
                + String.format("%09d", Math.floorMod(nanos, 1_000_000_000L)) + ")";
    }
}
