package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
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
                + "when one exists (default /var/run/clockbound/shm0), else from adjtimex's maxerror.")
final class BoundsCommand implements Callable<Integer> {

    @Option(names = "--shm", paramLabel = "PATH",
            description = "ClockBound segment to read; it must exist (without this option the default is used "
                    + "when present).")
    Path shm;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (BoundedClock clock = shm != null ? BoundedClock.open(shm) : BoundedClock.system()) {
            TimeBounds b = clock.now(new TimeBounds());
            out.printf("earliest  %s%n", format(b.earliestNanos()));
            out.printf("latest    %s%n", format(b.latestNanos()));
            out.printf("width     %s%n", b.widthNanos() == Long.MAX_VALUE ? "unbounded" : b.widthNanos() + " ns");
            out.printf("status    %s%n", b.status());
            out.printf("source    %s%n", clock.description());
            out.flush();
        }
        return 0;
    }

    private static String format(long nanos) {
        if (nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE) {
            return "unbounded";
        }
        return Instant.ofEpochSecond(0, nanos) + " (" + Math.floorDiv(nanos, 1_000_000_000L) + "."
                + String.format("%09d", Math.floorMod(nanos, 1_000_000_000L)) + ")";
    }
}
