package org.timekeeping4j.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.PathReader;

/**
 * No check passes on too little evidence: a starved cell (here a path whose every read takes 2 ms, as a cell
 * does whose threads the machine hardly schedules) is retried with more time and then INCONCLUSIVE with its
 * count, never OK; a violation is FAILED however few the samples; a property a path does not promise is
 * MEASURED whatever the figure.
 */
class SampleMinimumTest {

    /** MONOTONIC through the kernel, {@code delayNanos} per read; optionally unordered, optionally going back. */
    private record TestPath(String name, long delayNanos, boolean ordered, boolean goesBack) implements ClockPath {
        @Override
        public String description() {
            return "test path";
        }

        @Override
        public boolean serves(ClockId clock) {
            return clock == ClockId.MONOTONIC;
        }

        @Override
        public PathReader reader(ClockId clock) {
            AtomicLong n = new AtomicLong();
            return () -> {
                // Slow on the check's worker threads only: the warm-up reads on the caller's thread stay fast. Time
                // must pass here: a read that takes 2 ms is the starved cell under test, not a wait.
                if (delayNanos > 0 && Thread.currentThread().getName().startsWith("tk4j-verify-")) {
                    LockSupport.parkNanos(delayNanos);
                }
                long t = KernelClocks.nanos(ClockId.MONOTONIC);
                return goesBack && n.incrementAndGet() % 64 == 0 ? t - 1_000_000_000L : t;
            };
        }

        @Override
        public long agreementBoundNanos(ClockId clock) {
            return 1_000_000_000L; // the delay lies inside the bracket: agreement is about the count here
        }

        @Override
        public boolean orderedAcrossThreads() {
            return ordered;
        }
    }

    private static final ClockPath STARVED = new TestPath("starved", 2_000_000, true, false);

    private static Verifier.Settings settings(ClockPath path, double seconds) {
        return new Verifier.Settings(List.of(path), List.of(), seconds, 0, Progress.none());
    }

    private static void assertInconclusive(CheckResult r, long minimum, String counted) {
        assertThat(r.status()).as(r.toString()).isEqualTo(Status.INCONCLUSIVE);
        assertThat(r.summary()).as(r.toString()).contains(String.format("minimum of %,d", minimum))
                .contains("inconclusive").contains("attempt 3 of 3");
        assertThat(((Number) r.metrics().get(counted)).longValue()).isLessThan(minimum);
        assertThat(r.metrics().get("attempts")).isEqualTo(Verifier.MAX_ATTEMPTS);
    }

    @Test
    void aStarvedConsistencyCellIsInconclusiveWithItsCountNeverOk() {
        List<CheckResult> r = Verifier.consistency(settings(STARVED, 0.02));
        assertThat(r).hasSize(1);
        assertInconclusive(r.get(0), ConsistencyCheck.MIN_READS, "reads");
        assertThat(Verifier.anyInconclusive(r)).isTrue();
        assertThat(Verifier.tally(r)).isEqualTo("0 OK, 0 FAILED, 1 INCONCLUSIVE");
    }

    @Test
    void aStarvedCausalityCellIsInconclusive() {
        assertInconclusive(Verifier.causality(settings(STARVED, 0.02)).get(0), CausalityCheck.MIN_CHECKS, "checks");
    }

    @Test
    void aStarvedAgreementCellIsInconclusive() {
        // Agreement warms up for at least MIN_WARMUP_NANOS (capped at half the cell) before recording.
        assertInconclusive(Verifier.agreement(settings(STARVED, 0.02)).get(0), AgreementCheck.MIN_READS, "reads");
    }

    @Test
    void aMinimumSetForTheRunReplacesEachChecksOwnAndIsSaid() {
        // The starved path makes a few hundred reads at most: under every default, over a minimum of 64.
        Verifier.Settings lowered = new Verifier.Settings(List.of(STARVED), List.of(), 0.02, 0, Progress.none(), 64);
        for (CheckResult r : List.of(Verifier.consistency(lowered).get(0), Verifier.causality(lowered).get(0),
                Verifier.agreement(lowered).get(0))) {
            assertThat(r.status()).as(r.toString()).isEqualTo(Status.OK);
            assertThat(r.summary()).as(r.toString()).contains("minimum 64 set by --min-samples (default 1,0");
            String key = r.metrics().containsKey("minChecks") ? "minChecks" : "minReads";
            assertThat(r.metrics()).containsEntry(key, 64L).containsKey(key + "Default");
        }
        CheckResult skew = Verifier.skew(lowered, 5_000_000, 500_000).get(0);
        assertThat(skew.metrics()).as(skew.toString()).containsEntry("minReads", 64L);
    }

    @Test
    void aViolationIsAFailureHoweverFewTheSamples() {
        CheckResult r = ConsistencyCheck.run("consistency", "back", new TestPath("back", 0, true, true)
                .reader(ClockId.MONOTONIC), 1_000_000, 1);
        assertThat(r.status()).as(r.toString()).isEqualTo(Status.FAILED);
    }

    @Test
    void aHealthyCellIsOkFirstTimeWithoutAnAttemptCount() {
        CheckResult r = Verifier.consistency(settings(new TestPath("healthy", 0, true, false), 0.05)).get(0);
        assertThat(r.status()).as(r.toString()).isEqualTo(Status.OK);
        assertThat(r.metrics()).doesNotContainKey("attempts").containsEntry("minReads", ConsistencyCheck.MIN_READS);
    }

    @Test
    void causalityOnAnUnorderedPathIsMeasuredWhateverTheFigure() {
        CheckResult clean = Verifier.causality(settings(new TestPath("quiet", 0, false, false), 0.05)).get(0);
        CheckResult back = Verifier.causality(settings(new TestPath("back", 0, false, true), 0.05)).get(0);
        assertThat(clean.status()).as(clean.toString()).isEqualTo(Status.MEASURED);
        assertThat(back.status()).as(back.toString()).isEqualTo(Status.MEASURED);
        assertThat(((Number) back.metrics().get("violations")).longValue()).isPositive();
        assertThat(back.summary()).matches("reordered in [0-9.]+% of [0-9,]+ cross-thread checks \\(unordered reads: not promised\\)");
        assertThat(clean.summary()).startsWith("never reordered in ");
        assertThat(Verifier.anyFailed(List.of(clean, back))).isFalse();
    }
}
