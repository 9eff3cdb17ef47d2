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
                .contains("fast", "snapshot").doesNotContain("broken");
        // ticks needs counter cycles: not on a machine (or a moment) whose clocksource is not a trusted counter,
        // e.g. kvm-clock; it then says why instead.
        ClockPath ticks = ClockPaths.byName("ticks").orElseThrow();
        assertThat(ClockPaths.available().contains(ticks)).as(String.valueOf(ticks.unavailableReason()))
                .isEqualTo(org.timekeeping4j.Clocks.diagnostics().ticks().counterCycles());
        assertThat(ticks.unavailableReason().isPresent()).isNotEqualTo(org.timekeeping4j.Clocks.diagnostics().ticks().counterCycles());
        for (ClockPath p : ClockPaths.available()) {
            for (ClockId c : p.clocks()) {
                long a = p.reader(c).readNanos();
                long b = p.reader(c).readNanos();
                assertThat(b).as(p.name() + " " + c).isGreaterThanOrEqualTo(a);
            }
        }
    }

    /** The --path help of verify and bench, and docs/CLI.md, name every registered path (fast-unordered was missing). */
    @Test
    void helpAndTheCliPageNameEveryRegisteredPath() throws java.io.IOException {
        String verify = Tk4jHarness.run("verify", "consistency", "--help").out().replaceAll("\\s+", " ");
        String bench = Tk4jHarness.run("bench", "--help").out().replaceAll("\\s+", " ");
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "CLI.md"));
        java.util.regex.Matcher list = java.util.regex.Pattern.compile("`--path ([a-z|-]+)`").matcher(readme);
        assertThat(list.find()).as("docs/CLI.md's `--path a|b|c` list").isTrue();
        java.util.List<String> listed = java.util.List.of(list.group(1).split("\\|"));
        for (ClockPath p : ClockPaths.all()) {
            if (!p.hidden()) {
                assertThat(verify).as("verify --help").containsPattern("[ :,]" + p.name() + "[,.]");
                assertThat(bench).as("bench --help").containsPattern("[ :,]" + p.name() + "[,.]");
                assertThat(listed).as("docs/CLI.md's --path list").contains(p.name());
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
