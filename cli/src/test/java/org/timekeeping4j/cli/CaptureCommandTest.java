package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.Clocks;

class CaptureCommandTest {

    @Test
    void captureShouldMeasureEveryPathAgainstOneCounterRead() {
        CliHarness r = CliHarness.run("capture", "-n", "20000");
        // It measures wherever the library says ticks are counter cycles, and says why not elsewhere.
        if (!Clocks.diagnostics().ticks().counterCycles()) {
            assertThat(r.exitCode()).isEqualTo(3);
            assertThat(r.out()).contains("not counter cycles");
            return;
        }
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("20,000 iterations per path")
                .contains("Clocks.ticks() (reference)").contains("Clocks.snapshot(REALTIME)")
                .contains("Clocks.nanos(REALTIME)").contains("KernelClocks.nanos(REALTIME)").contains("System.nanoTime()")
                .contains("p50 x read").doesNotContain("goal");
    }

    @Test
    void captureJsonShouldCarryMeanAndPercentiles() {
        CliHarness r = CliHarness.run("capture", "-n", "5000", "--json");
        if (!Clocks.diagnostics().ticks().counterCycles()) {
            assertThat(r.exitCode()).isEqualTo(3);
            return;
        }
        assertThat(r.out()).contains("\"iterations\": 5000")
                .contains("\"read\": \"" + Clocks.diagnostics().ticks().read() + "\"").contains("\"meanNs\"").contains("\"p999Ns\"");
        // The ratio is of the statistic printed next to it, the p50, against the counter read's p50.
        com.fasterxml.jackson.databind.JsonNode paths = new Tk4jHarness(r.exitCode(), r.out(), r.err()).json().get("paths");
        double reference = paths.get(0).get("p50Ns").asDouble();
        for (com.fasterxml.jackson.databind.JsonNode p : paths) {
            assertThat(p.get("p50RatioToCounterRead").asDouble())
                    .isCloseTo(p.get("p50Ns").asDouble() / reference, org.assertj.core.data.Offset.offset(1e-9));
        }
        CliHarness bad = CliHarness.run("capture", "-n", "10");
        assertThat(bad.exitCode()).isEqualTo(Tk4j.EXIT_USAGE);
    }
}
