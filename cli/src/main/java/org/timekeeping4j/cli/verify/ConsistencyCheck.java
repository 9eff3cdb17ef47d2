package org.timekeeping4j.cli.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.timekeeping4j.cli.path.PathReader;

/**
 * {@code verify consistency}: the kernel selftest inconsistency-check, per path. Each thread fills 64 timestamps
 * back to back, then checks every adjacent pair; a pair whose second stamp is earlier than the first is a
 * violation. The first violation's 64 stamps are kept, printed with the bad pair marked and "Delta: N ns".
 */
public final class ConsistencyCheck {

    /** Stamps per batch, as inconsistency-check's CALLS_PER_LOOP. */
    static final int CALLS_PER_LOOP = 64;

    /**
     * The fewest reads (16 batches) a cell needs for OK: fewer, without a violation, is INCONCLUSIVE. A system
     * call path makes a million reads a second; a starved cell, none.
     */
    public static final long MIN_READS = 16 * CALLS_PER_LOOP;

    private ConsistencyCheck() {}

    /** Runs the check on one clock reader for {@code nanos} with {@code threads} threads. */
    public static CheckResult run(String mode, String subject, PathReader reader, long nanos,
                                  int threads) {
        return run(mode, subject, reader, nanos, threads, MIN_READS);
    }

    /** As {@link #run(String, String, PathReader, long, int)}, OK only from {@code minReads} reads on. */
    public static CheckResult run(String mode, String subject, PathReader reader, long nanos, int threads,
                                  long minReads) {
        ThreadResult[] results = new ThreadResult[threads];
        TimedRun.warm(reader);
        TimedRun.run(threads, nanos, (index, run) -> results[index] = fill(reader, run));
        long reads = 0;
        long violations = 0;
        ThreadResult firstBad = null;
        int firstBadThread = -1;
        for (int i = 0; i < threads; i++) {
            reads += results[i].batches * CALLS_PER_LOOP;
            violations += results[i].violations;
            if (firstBad == null && results[i].badIndex >= 0) {
                firstBad = results[i];
                firstBadThread = i;
            }
        }
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("reads", reads);
        metrics.put("threads", threads);
        metrics.put("violations", violations);
        Status.putMinimum(metrics, "minReads", minReads, MIN_READS);
        List<String> details = new ArrayList<>();
        if (firstBad != null) {
            long delta = firstBad.stamps[firstBad.badIndex + 1] - firstBad.stamps[firstBad.badIndex];
            metrics.put("firstDeltaNs", delta);
            details.add("thread " + firstBadThread + ", stamps " + firstBad.badIndex + " and " + (firstBad.badIndex + 1)
                    + " of " + CALLS_PER_LOOP + ":");
            details.addAll(dump(firstBad.stamps, firstBad.badIndex));
            details.add("Delta: " + delta + " ns");
        }
        String summary = String.format("%,d reads on %d thread%s, %d violation%s", reads, threads,
                threads == 1 ? "" : "s", violations, violations == 1 ? "" : "s")
                + Status.minimumNote(minReads, MIN_READS) + Status.shortfall(reads, minReads, violations);
        return new CheckResult(mode, subject, Status.of(reads, minReads, violations), summary, metrics, details);
    }

    private static ThreadResult fill(PathReader reader, TimedRun run) {
        ThreadResult r = new ThreadResult();
        long[] stamps = new long[CALLS_PER_LOOP];
        while (run.running()) {
            // Back to back, nothing else between the reads: the window in which a clock could go backwards.
            for (int i = 0; i < CALLS_PER_LOOP; i++) {
                stamps[i] = reader.readNanos();
            }
            r.batches++;
            for (int i = 0; i < CALLS_PER_LOOP - 1; i++) {
                if (stamps[i] > stamps[i + 1]) {
                    r.violations++;
                    if (r.badIndex < 0) {
                        r.badIndex = i;
                        System.arraycopy(stamps, 0, r.stamps, 0, CALLS_PER_LOOP);
                    }
                }
            }
        }
        return r;
    }

    /** The 64 stamps as sec:nsec, one a line, the bad pair between dashed lines and marked. */
    static List<String> dump(long[] stamps, int badIndex) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < stamps.length; i++) {
            if (i == badIndex) {
                lines.add("--------------------");
            }
            String mark = i == badIndex || i == badIndex + 1 ? "  <-" : "";
            lines.add(String.format("%2d %d:%09d%s", i, Math.floorDiv(stamps[i], 1_000_000_000L),
                    Math.floorMod(stamps[i], 1_000_000_000L), mark));
            if (i == badIndex + 1) {
                lines.add("--------------------");
            }
        }
        return lines;
    }

    private static final class ThreadResult {
        long batches;
        long violations;
        int badIndex = -1;
        final long[] stamps = new long[CALLS_PER_LOOP];
    }
}
