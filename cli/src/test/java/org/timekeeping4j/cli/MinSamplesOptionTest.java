package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.cli.verify.AgreementCheck;
import org.timekeeping4j.cli.verify.CausalityCheck;
import org.timekeeping4j.cli.verify.ConsistencyCheck;

/**
 * {@code verify --min-samples N} replaces every timed check's minimum, and says so on every result, under the
 * tally and in the JSON; without it nothing mentions a minimum set by hand. A minimum raised beyond reach makes a
 * healthy run INCONCLUSIVE (exit 3), which is what shows that the option is honoured and not only printed.
 */
class MinSamplesOptionTest {

    @Test
    void aLoweredMinimumIsSaidOnEveryResultUnderTheTallyAndInTheJson() {
        Tk4jHarness r = Tk4jHarness.run("verify", "all", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.4",
                "--min-samples", "64");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.unfolded()).contains(String.format("minimum 64 set by --min-samples (default %,d)",
                        ConsistencyCheck.MIN_READS))
                .contains(String.format("minimum 64 set by --min-samples (default %,d)", AgreementCheck.MIN_READS))
                .contains("minimum samples per check: 64, set by --min-samples");
        // consistency, causality, agreement and the skew clocks each say it; abi has no minimum.
        assertThat(r.unfolded().lines().filter(l -> l.contains("[OK]") && !l.startsWith("abi")))
                .allSatisfy(l -> assertThat(l).contains("minimum 64 set by --min-samples"));

        Tk4jHarness j = Tk4jHarness.run("verify", "consistency", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.1",
                "--min-samples", "64", "--json");
        assertThat(j.exit()).as(j.toString()).isZero();
        assertThat(j.json().get("minSamples").asLong()).isEqualTo(64);
        for (JsonNode c : j.json().get("checks")) {
            assertThat(c.get("minReads").asLong()).isEqualTo(64);
            assertThat(c.get("minReadsDefault").asLong()).isEqualTo(ConsistencyCheck.MIN_READS);
        }
    }

    @Test
    void withoutTheOptionTheDefaultsApplyAndNothingSaysOtherwise() {
        Tk4jHarness j = Tk4jHarness.run("verify", "causality", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.1",
                "--json");
        assertThat(j.exit()).as(j.toString()).isZero();
        assertThat(j.json().has("minSamples")).isFalse();
        JsonNode c = j.json().get("checks").get(0);
        assertThat(c.get("minChecks").asLong()).isEqualTo(CausalityCheck.MIN_CHECKS);
        assertThat(c.has("minChecksDefault")).isFalse();
        assertThat(Tk4jHarness.prose(c.get("summary"))).doesNotContain("--min-samples");
    }

    @Test
    void aMinimumRaisedBeyondReachIsInconclusiveNotOk() {
        Tk4jHarness r = Tk4jHarness.run("verify", "agreement", "-c", "MONOTONIC", "--path", "kernel", "-t", "0.02",
                "--min-samples", "1000000000");
        assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_SKIPPED);
        assertThat(r.unfolded()).contains("[INCONCLUSIVE]")
                .contains(String.format("minimum 1,000,000,000 set by --min-samples (default %,d)",
                        AgreementCheck.MIN_READS))
                .contains("(exit 3: inconclusive, not passed)");
    }

    @Test
    void zeroNegativeOrAbiAreUsageErrors() {
        for (String n : new String[] {"0", "-5", "1000000001"}) {
            Tk4jHarness r = Tk4jHarness.run("verify", "consistency", "--min-samples", n);
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
            assertThat(r.err()).contains("--min-samples " + n + ": give 1..1000000000");
        }
        Tk4jHarness abi = Tk4jHarness.run("verify", "abi", "--min-samples", "5");
        assertThat(abi.exit()).as(abi.toString()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(abi.err()).contains("--min-samples does not apply to abi");
    }
}
