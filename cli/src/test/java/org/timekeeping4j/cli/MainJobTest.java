package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainJobTest {

    @Test
    void noArgumentsShowsPathsSpeedAndVerdictOnOneScreen() {
        Tk4jHarness r = Tk4jHarness.run("--budget", "1.5");
        assertThat(r.out()).contains("clocksource").contains("CLOCK_MONOTONIC").contains("paths here:").contains("  kernel ")
                .contains("verify:").containsPattern("\\d\\.\\d\\dx");
        // The verdict is the paths' own (the fast path's accuracy is asserted in core); the main job must report it
        // faithfully: exit 0 exactly when it printed "all correct [OK]", 1 with the failing checks listed otherwise.
        boolean ok = r.out().contains("all correct [OK]");
        assertThat(r.exit()).as(r.toString()).isEqualTo(ok ? 0 : 1);
        if (!ok) {
            assertThat(r.out()).contains("FAILED:");
        }
        assertThat(r.out().lines().count()).isLessThanOrEqualTo(45);
        // The summary names every mode that ran, skew included.
        String verify = r.out().lines().filter(l -> l.startsWith("verify:")).findFirst().orElseThrow();
        assertThat(verify).contains("consistency, causality, agreement, abi, skew)");
    }
}
