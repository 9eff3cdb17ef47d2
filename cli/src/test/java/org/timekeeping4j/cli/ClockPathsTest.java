package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;

class ClockPathsTest {

    @Test
    void availablePathsAreVisibleAndReadTheirClocks() {
        assertThat(ClockPaths.available()).extracting(ClockPath::name).startsWith("kernel", "syscall", "jdk")
                .contains("fast", "ticks", "snapshot").doesNotContain("broken");
        for (ClockPath p : ClockPaths.available()) {
            for (ClockId c : p.clocks()) {
                long a = p.reader(c).readNanos();
                long b = p.reader(c).readNanos();
                assertThat(b).as(p.name() + " " + c).isGreaterThanOrEqualTo(a);
            }
        }
    }

    @Test
    void unknownPathsAreRefusedWithOneLine() {
        assertThatThrownBy(() -> ClockPaths.require("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown path 'nope'");
        assertThat(ClockPaths.require("broken").hidden()).isTrue();
    }

    @Test
    void pathsRefuseClocksTheyDoNotServe() {
        assertThatThrownBy(() -> ClockPaths.JDK.reader(ClockId.MONOTONIC_RAW))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("CLOCK_MONOTONIC_RAW");
    }
}
