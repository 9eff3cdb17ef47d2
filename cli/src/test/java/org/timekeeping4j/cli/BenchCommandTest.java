package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {

    @Test
    void tableHasEveryPathOfTheClockAndTheRatioToTheJdk() {
        Tk4jHarness r = Tk4jHarness.run("bench", "-c", "MONOTONIC", "--warmup", "0.02", "--duration", "0.05");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("CLOCK_MONOTONIC").contains("kernel").contains("syscall")
                .contains("System.nanoTime").contains("(baseline)").containsPattern("\\d+\\.\\d\\dx System.nanoTime");
    }

    @Test
    void jsonParsesWithMeanP50P99AndRatioPerCell(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("bench.html");
        Tk4jHarness r = Tk4jHarness.run("bench", "-c", "MONOTONIC", "-c", "REALTIME_COARSE", "--path", "kernel",
                "--warmup", "0.02", "--duration", "0.05", "--json", "--html", html.toString());
        assertThat(r.exit()).as(r.toString()).isZero();
        JsonNode cells = r.json().get("cells");
        assertThat(cells).hasSize(2);
        for (JsonNode c : cells) {
            assertThat(c.get("meanNs").asDouble()).isPositive();
            assertThat(c.get("p99Ns").asDouble()).isGreaterThanOrEqualTo(c.get("p50Ns").asDouble());
            assertThat(c.get("ratioToBaseline").asDouble()).isPositive();
            assertThat(c.get("baseline").asText()).isEqualTo("System.nanoTime");
        }
        String page = Files.readString(html);
        assertThat(page).contains("<svg").contains("CLOCK_MONOTONIC").contains("CLOCK_REALTIME_COARSE")
                .doesNotContain("<script").doesNotContain("src=").doesNotContain("href=")
                .doesNotContain("https://");
    }

    @Test
    void unknownPathIsAUsageError() {
        Tk4jHarness r = Tk4jHarness.run("bench", "--path", "warp");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err()).contains("unknown path 'warp'");
    }
}
