package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class VerifyCommandTest {

    @Test
    void consistencyPassesOnTheKernelPath() {
        Tk4jHarness r = Tk4jHarness.run("verify", "consistency", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.2");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("kernel CLOCK_MONOTONIC").contains("[OK]").doesNotContain("[FAILED]");
    }

    @Test
    void consistencyCatchesThePlantedBackwardsClock() {
        Tk4jHarness r = Tk4jHarness.run("verify", "consistency", "--path", "broken", "-t", "0.2");
        assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_FAILED);
        assertThat(r.out()).contains("--------------------").contains("  <-").containsPattern("Delta: -\\d+ ns")
                .contains("[FAILED]");
        // The 64 stamps of the failing batch are printed (sec:nsec), numbered 0..63, exactly two of them marked.
        assertThat(r.out().lines().filter(l -> l.matches("\\s+\\d{1,2} \\d+:\\d{9}(  <-)?"))).hasSize(64);
        assertThat(r.out().lines().filter(l -> l.endsWith("  <-"))).hasSize(2);
    }

    @Test
    void causalityPassesOnTheKernelAndCatchesThePlantedBackwardsClock() {
        Tk4jHarness ok = Tk4jHarness.run("verify", "causality", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.2");
        assertThat(ok.exit()).as(ok.toString()).isZero();
        assertThat(ok.out()).contains("[OK]");

        Tk4jHarness bad = Tk4jHarness.run("verify", "causality", "--path", "broken", "-t", "0.2");
        assertThat(bad.exit()).as(bad.toString()).isEqualTo(Tk4j.EXIT_FAILED);
        assertThat(bad.out()).contains("[FAILED]").containsPattern("Delta: -\\d+ ns");
    }

    @Test
    void agreementHoldsTheKernelPathToABoundOfZero() {
        Tk4jHarness r = Tk4jHarness.run("verify", "agreement", "-c", "MONOTONIC", "-c", "REALTIME", "--path", "kernel",
                "--path", "jdk", "-t", "0.2", "--json");
        assertThat(r.exit()).as(r.toString()).isZero();
        JsonNode checks = r.json().get("checks");
        assertThat(checks).hasSize(4);
        for (JsonNode c : checks) {
            assertThat(c.get("status").asText()).isEqualTo("OK");
            assertThat(c.get("excursionMaxNs").asLong()).isLessThanOrEqualTo(c.get("boundNs").asLong());
            if (c.get("subject").asText().startsWith("kernel ")) {
                assertThat(c.get("boundNs").asLong()).isZero();
            }
        }
    }

    @Test
    void agreementExposesThePlantedClockToo() {
        Tk4jHarness r = Tk4jHarness.run("verify", "agreement", "--path", "broken", "-t", "0.2");
        assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_FAILED);
    }

    @Test
    void abiChecksPass() {
        Tk4jHarness r = Tk4jHarness.run("verify", "abi", "--json");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.json().get("checks")).extracting(c -> c.get("subject").asText())
                .containsExactly("bogus clock ids", "unsupported clocks", "getres", "normalised timespecs");
    }

    /**
     * CLOCK_TAI's offset: OK only where a current leap-second list confirms it; otherwise the diagnostics' line with
     * its fix as a NOTICE, which never fails the run (SKIPPED only where adjtimex is refused).
     */
    @Test
    void taiIsOkWhereConfirmedElseANoticeWithTheFixNeverAFailure() {
        org.timekeeping4j.Diagnostics d = org.timekeeping4j.Clocks.diagnostics();
        Tk4jHarness r = Tk4jHarness.run("verify", "tai", "--json");
        JsonNode check = r.json().get("checks").get(0);
        assertThat(check.get("mode").asText()).isEqualTo("tai");
        assertThat(Tk4jHarness.prose(check.get("summary"))).isEqualTo(d.tai());
        assertThat(check.get("confirmed").asBoolean()).isEqualTo(d.taiConfirmed());
        String status = check.get("status").asText();
        if (d.taiConfirmed()) {
            assertThat(status).isEqualTo("OK");
        } else {
            assertThat(status).as("a NOTICE, or SKIPPED where adjtimex refused").isIn("NOTICE", "SKIPPED");
            assertThat(status.equals("SKIPPED")).isEqualTo(!org.timekeeping4j.SyncStatus.read().isAvailable());
        }
        assertThat(r.exit()).as(r.toString()).isEqualTo(status.equals("SKIPPED") ? Tk4j.EXIT_SKIPPED : 0);
        Tk4jHarness human = Tk4jHarness.run("verify", "tai");
        assertThat(human.unfolded()).containsPattern("(?m)^tai +CLOCK_TAI offset .*" + java.util.regex.Pattern.quote(
                d.tai()));
        assertThat(Tk4jHarness.run("verify", "tai", "-c", "TAI").exit()).isEqualTo(Tk4j.EXIT_USAGE);
    }

    @Test
    void skewRunsTheTimekeeperThroughFrequencyFlipsWithoutAnyClockGoingBack() {
        Tk4jHarness r = Tk4jHarness.run("verify", "skew", "-t", "0.5", "--flip-ms", "50");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.unfolded()).contains("Timekeeper, simulated 24 MHz 32-bit").contains(" 0 violations")
                .contains("frequency flips of +/-500 ppm");
    }

    @Test
    void bogusClockIdsAreUsageErrorsNamingTheId() {
        Tk4jHarness r = Tk4jHarness.run("verify", "consistency", "-c", "10");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err()).contains("--clock '10'");
    }

    @Test
    void unknownAndUnavailablePathsAreOneLineUsageErrors() {
        Tk4jHarness unknown = Tk4jHarness.run("verify", "consistency", "--path", "nope");
        assertThat(unknown.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(unknown.unfoldedErr().strip()).doesNotContain("\n").contains("unknown path 'nope'").contains("kernel");

        Tk4jHarness unserved = Tk4jHarness.run("verify", "consistency", "--path", "jdk", "-c", "MONOTONIC_RAW");
        assertThat(unserved.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(unserved.err()).contains("CLOCK_MONOTONIC_RAW");
    }

    @Test
    void allRunsEveryModeIncludingSkew() {
        // The kernel and JDK paths: this test is about the modes' plumbing; the fast path's accuracy is core's.
        Tk4jHarness r = Tk4jHarness.run("verify", "all", "-c", "MONOTONIC", "-t", "0.4", "--path", "kernel",
                "--path", "jdk", "--json");
        assertThat(r.exit()).as(r.toString()).isZero();
        JsonNode json = r.json();
        assertThat(json.get("passed").asBoolean()).isTrue();
        assertThat(json.get("checks")).extracting(c -> c.get("mode").asText())
                .contains("consistency", "causality", "agreement", "abi", "tai", "skew");
        assertThat(json.get("checks")).filteredOn(c -> c.get("mode").asText().equals("skew"))
                .isNotEmpty().allSatisfy(c -> assertThat(c.get("status").asText()).isEqualTo("OK"));
    }
}
