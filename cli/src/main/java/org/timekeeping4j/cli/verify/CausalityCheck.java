package org.timekeeping4j.cli.verify;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.PathReader;

/**
 * {@code verify causality}: time must not run backwards across threads. Thread 0 reads the clock and publishes
 * the stamp; every other thread takes the latest published stamp, then reads the clock itself: its reading
 * happens after the publisher's, so it must not be smaller. Catches a clock that is monotonic within a thread
 * but not between CPUs (unsynchronised counters, a missing fence before an unordered counter read) and a clock
 * that goes backwards now and then.
 *
 * <p>Not for THREAD_CPUTIME_ID: each thread has its own.
 */
public final class CausalityCheck {

    private static final VarHandle PUBLISHED;

    static {
        try {
            PUBLISHED = MethodHandles.lookup().findVarHandle(Slot.class, "stamp", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The fewest reader checks (a stamp seen, then the clock read) a cell needs for OK. */
    public static final long MIN_CHECKS = 1_000;

    private CausalityCheck() {}

    /** Whether the check means anything for this clock. */
    public static boolean accepts(ClockId clock) {
        return clock != ClockId.THREAD_CPUTIME_ID;
    }

    /** Runs one publisher and {@code threads - 1} (at least one) checking readers for {@code nanos}. */
    public static CheckResult run(String mode, String subject, PathReader reader, long nanos, int threads) {
        return run(mode, subject, reader, nanos, threads, MIN_CHECKS);
    }

    /** As {@link #run(String, String, PathReader, long, int)}, OK only from {@code minChecks} checks on. */
    public static CheckResult run(String mode, String subject, PathReader reader, long nanos, int threads,
                                  long minChecks) {
        int n = Math.max(2, threads);
        Slot slot = new Slot();
        slot.stamp = Long.MIN_VALUE;
        long[] checks = new long[n];
        long[] violations = new long[n];
        long[] worst = new long[n];
        long[] published = new long[1];
        TimedRun.warm(reader);
        TimedRun.run(n, nanos, (index, run) -> {
            if (index == 0) {
                long count = 0;
                while (run.running()) {
                    // Release: the stamp is read (program order) before it becomes visible to the readers.
                    // Pairs with getAcquire below.
                    PUBLISHED.setRelease(slot, reader.readNanos());
                    count++;
                }
                published[0] = count;
            } else {
                long c = 0;
                long v = 0;
                long w = 0;
                while (run.running()) {
                    // Acquire: the clock read below comes after we saw the publisher's stamp. Pairs with setRelease.
                    long seen = (long) PUBLISHED.getAcquire(slot);
                    long now = reader.readNanos();
                    if (seen != Long.MIN_VALUE) {
                        c++;
                        if (now < seen) {
                            v++;
                            w = Math.max(w, seen - now);
                        }
                    }
                }
                checks[index] = c;
                violations[index] = v;
                worst[index] = w;
            }
        });
        long totalChecks = 0;
        long totalViolations = 0;
        long maxBack = 0;
        for (int i = 1; i < n; i++) {
            totalChecks += checks[i];
            totalViolations += violations[i];
            maxBack = Math.max(maxBack, worst[i]);
        }
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("published", published[0]);
        metrics.put("checks", totalChecks);
        metrics.put("readers", n - 1);
        metrics.put("violations", totalViolations);
        metrics.put("maxBackNs", maxBack);
        Status.putMinimum(metrics, "minChecks", minChecks, MIN_CHECKS);
        String summary = String.format("%,d published, %,d checks by %d reader%s, %d violation%s", published[0],
                totalChecks, n - 1, n == 2 ? "" : "s", totalViolations, totalViolations == 1 ? "" : "s")
                + Status.minimumNote(minChecks, MIN_CHECKS) + Status.shortfall(totalChecks, minChecks, totalViolations);
        List<String> details = totalViolations == 0 ? List.of()
                : List.of("a reader saw the clock " + maxBack + " ns earlier than a stamp published before it",
                        "Delta: " + (-maxBack) + " ns");
        return new CheckResult(mode, subject, Status.of(totalChecks, minChecks, totalViolations), summary, metrics,
                details);
    }

    /** "reordered in 8.2% of 3,466,174 cross-thread checks (unordered reads: not promised)". */
    public static String reordered(long violations, long checks) {
        String rate = violations == 0 ? "never reordered in" : "reordered in " + percent(violations, checks) + " of";
        return String.format(java.util.Locale.ROOT, "%s %,d cross-thread checks (unordered reads: not promised)",
                rate, checks);
    }

    /** {@code part} of {@code whole} in percent to two significant figures: "8.2%", "0.00098%", "100%". */
    public static String percent(long part, long whole) {
        if (whole <= 0) {
            return "?%";
        }
        java.math.BigDecimal p = java.math.BigDecimal.valueOf(part * 100.0 / whole)
                .round(new java.math.MathContext(2));
        return p.stripTrailingZeros().toPlainString() + "%";
    }

    private static final class Slot {
        // Accessed through PUBLISHED (release/acquire) only.
        @SuppressWarnings("unused")
        long stamp;
    }
}
