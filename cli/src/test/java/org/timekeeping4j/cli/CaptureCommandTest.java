package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.clocksource.CounterSelector;

class CaptureCommandTest {

    @Test
    void captureShouldMeasureEveryPathAgainstOneCounterRead() {
        CliHarness r = CliHarness.run("capture", "-n", "20000");
        if (!CounterSelector.selected().isHardware()) {
            assertThat(r.exitCode()).isEqualTo(3);
            return;
        }
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("mean of 20,000 iterations")
                .contains("counter read (reference)").contains("Clocks.snapshot(REALTIME)")
                .contains("Clocks.nanos(REALTIME)").contains("Clocks.kernelNanos(REALTIME)").contains("System.nanoTime()")
                .containsPattern("goal: snapshot <= 1.2 x one counter read \\(\\d+\\.\\d\\dx\\)");
    }

    @Test
    void captureJsonShouldCarryMeanAndPercentiles() {
        CliHarness r = CliHarness.run("capture", "-n", "5000", "--json");
        if (!CounterSelector.selected().isHardware()) {
            return;
        }
        assertThat(r.out()).contains("\"iterations\": 5000").contains("\"meanNs\"").contains("\"p999Ns\"")
                .contains("\"ratioToCounterRead\"");
        CliHarness bad = CliHarness.run("capture", "-n", "10");
        assertThat(bad.exitCode()).isEqualTo(Tk4j.EXIT_USAGE);
    }
}
