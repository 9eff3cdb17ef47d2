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

    /** The ratio printed is of the column printed next to it, the p50s (issue 15: it was of the means). */
    @Test
    void theTablesRatioIsOfThePrintedP50s() {
        Tk4jHarness r = Tk4jHarness.run("bench", "-c", "MONOTONIC", "--warmup", "0.02", "--duration", "0.05");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("p50 vs JDK");
        double baseline = Double.NaN;
        java.util.List<double[]> rows = new java.util.ArrayList<>(); // p50, ratio
        java.util.regex.Pattern row = java.util.regex.Pattern.compile(
                "(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(?:\\(baseline\\)|(\\d+\\.\\d\\d)x System\\.nanoTime)$");
        for (String line : r.out().lines().toList()) {
            java.util.regex.Matcher m = row.matcher(line.strip());
            if (!m.find()) {
                continue;
            }
            double p50 = Double.parseDouble(m.group(3));
            if (m.group(4) == null) {
                baseline = p50;
            } else {
                rows.add(new double[] {p50, Double.parseDouble(m.group(4))});
            }
        }
        assertThat(baseline).as(r.out()).isPositive();
        assertThat(rows).as(r.out()).isNotEmpty();
        for (double[] x : rows) {
            // p50s printed with one decimal (or none from 100 ns), the ratio with two.
            double expected = x[0] / baseline;
            assertThat(x[1]).as(r.out()).isCloseTo(expected, org.assertj.core.data.Offset.offset(0.006 + expected * 0.1 / baseline
                    + expected * 0.5 / Math.max(1, x[0])));
        }
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
