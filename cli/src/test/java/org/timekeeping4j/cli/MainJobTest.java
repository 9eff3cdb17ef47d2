package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainJobTest {

    @Test
    void noArgumentsShowsPathsSpeedAndVerdictOnOneScreen() {
        Tk4jHarness r = Tk4jHarness.run("--budget", "1.5");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("clocksource").contains("CLOCK_MONOTONIC").contains("paths here:").contains("  kernel ")
                .contains("verify:").contains("[OK]").containsPattern("\\d\\.\\d\\dx");
        assertThat(r.out().lines().count()).isLessThanOrEqualTo(45);
    }
}
