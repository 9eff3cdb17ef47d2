package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.verify.SkewCheck;
import org.timekeeping4j.simulation.SimulatedTimekeeper;

/** The skew plumbing against stand-in timekeepers, one continuous and one that jumps back. */
class SkewTest {

    /**
     * A stand-in timekeeper over System.nanoTime as its counter, all under one lock. {@code continuous} rebases at
     * every frequency change as the kernel does; without it a lower slope makes time jump back.
     */
    static final class StandInTimekeeper implements SimulatedTimekeeper {
        private final boolean continuous;
        private final long origin = System.nanoTime();
        private long baseCounter = origin;
        private long baseNanos;
        private long ppb;

        StandInTimekeeper(boolean continuous) {
            this.continuous = continuous;
        }

        @Override
        public String name() {
            return continuous ? "stand-in" : "stand-in-buggy";
        }

        @Override
        public List<ClockId> clocks() {
            return List.of(ClockId.MONOTONIC);
        }

        @Override
        public synchronized long readNanos(ClockId clock) {
            return at(System.nanoTime());
        }

        private long at(long counter) {
            long elapsed = counter - baseCounter;
            return baseNanos + elapsed + elapsed * ppb / 1_000_000_000L;
        }

        @Override
        public synchronized void adjustFrequencyPpb(long newPpb) {
            if (continuous) {
                long now = System.nanoTime();
                baseNanos = at(now);
                baseCounter = now;
            }
            ppb = newPpb;
        }
    }

    @Test
    void skewPassesForATimekeeperThatStaysContinuous() {
        try (SkewCheck.Substitution standIn = SkewCheck.substitute(() -> new StandInTimekeeper(true))) {
            Tk4jHarness r = Tk4jHarness.run("verify", "skew", "-t", "0.3", "--json");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.json().get("checks").get(0).get("frequencyFlips").asLong()).isGreaterThan(2);
        }
    }

    @Test
    void skewCatchesATimekeeperThatJumpsBackWhenTheSlopeDrops() {
        // Flips every 10 ms make the jump (elapsed time x 1000 ppm) land inside a 64-stamp batch many times over.
        try (SkewCheck.Substitution standIn = SkewCheck.substitute(() -> new StandInTimekeeper(false))) {
            Tk4jHarness r = Tk4jHarness.run("verify", "skew", "-t", "0.5", "--flip-ms", "5");
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_FAILED);
            assertThat(r.out()).contains("[FAILED]").containsPattern("Delta: -\\d+ ns");
        }
    }
}
