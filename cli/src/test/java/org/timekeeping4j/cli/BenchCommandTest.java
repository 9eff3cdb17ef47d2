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
                .contains("CLOCK_MONOTONIC (baseline: System.nanoTime)").contains("(baseline)")
                .containsPattern("(?m)\\d+\\.\\d\\dx \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\)( noisy)?$");
    }

    /**
     * Every row names its baseline, and its ratio is the median of the rounds, printed between the lowest and
     * the highest round's (one run's ratio swung from 1.03x to 0.66x between runs
     * with no spread shown).
     */
    @Test
    void everyRowShowsItsRatiosSpreadOverRoundsAndNamesItsBaseline() {
        Tk4jHarness r = Tk4jHarness.run("bench", "-c", "MONOTONIC", "--warmup", "0.02", "--duration", "0.05",
                "--rounds", "3");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("median over 3 alternating rounds");
        java.util.regex.Pattern row = java.util.regex.Pattern.compile(
                "(\\d+\\.\\d\\d)x \\((\\d+\\.\\d\\d)-(\\d+\\.\\d\\d)\\)( noisy)?$");
        assertThat(r.out()).contains("CLOCK_MONOTONIC (baseline: System.nanoTime)");
        int rows = 0;
        for (String line : r.out().lines().filter(l -> l.startsWith("  ")).toList()) {
            if (line.contains("(baseline)")) {
                continue;
            }
            java.util.regex.Matcher m = row.matcher(line.strip());
            assertThat(m.find()).as(line).isTrue();
            double ratio = Double.parseDouble(m.group(1));
            assertThat(ratio).as(line).isBetween(Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3)));
            rows++;
        }
        assertThat(rows).as(r.out()).isPositive();
    }

    @Test
    void aClockNamedTwiceIsMeasuredOnce() {
        Tk4jHarness r = Tk4jHarness.run("bench", "-c", "MONOTONIC", "-c", "CLOCK_MONOTONIC", "--path", "kernel",
                "--warmup", "0.01", "--duration", "0.02", "--rounds", "1", "--json");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.json().get("cells")).hasSize(1);
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

    /**
     * The CPU-time clocks are ranked against the JDK's CPU-time calls, not System.nanoTime (once "58x": a system
     * call against a vDSO read), and the table, the page and --json name the same baseline.
     */
    @Test
    void theCpuTimeClocksAreComparedWithTheJdksCpuTimeCallsEverywhere(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("bench.html");
        String[] args = {"bench", "-c", "THREAD_CPUTIME_ID", "-c", "PROCESS_CPUTIME_ID", "--path", "kernel",
                "--path", "jdk", "--warmup", "0.01", "--duration", "0.03", "--rounds", "1"};
        Tk4jHarness r = Tk4jHarness.run(concat(args, "--html", html.toString()));
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).doesNotContain("System.nanoTime").doesNotContain("Instant.now");
        java.util.List<String> rows = r.out().lines().filter(l -> l.startsWith("  ")).toList();
        assertThat(rows).hasSize(4);
        assertThat(r.out()).contains("CLOCK_THREAD_CPUTIME_ID (baseline: getCurrentThreadCpuTime)")
                .contains("CLOCK_PROCESS_CPUTIME_ID (baseline: getProcessCpuTime)");
        assertThat(rows.stream().filter(l -> l.contains("(baseline)"))).hasSize(2);
        String page = Files.readString(html);
        assertThat(page).contains("baseline (dashed line): getCurrentThreadCpuTime")
                .contains("baseline (dashed line): getProcessCpuTime")
                .contains("<td>jdk</td><td>getCurrentThreadCpuTime</td>")
                .doesNotContain("<td>System.nanoTime</td>");
        Tk4jHarness j = Tk4jHarness.run(concat(args, "--json"));
        assertThat(j.exit()).as(j.toString()).isZero();
        for (JsonNode c : j.json().get("cells")) {
            assertThat(c.get("baseline").asText()).as(c.toString()).isEqualTo(
                    c.get("clock").asText().equals("CLOCK_THREAD_CPUTIME_ID") ? "getCurrentThreadCpuTime"
                            : "getProcessCpuTime");
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void unknownPathIsAUsageError() {
        Tk4jHarness r = Tk4jHarness.run("bench", "--path", "warp");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err()).contains("unknown path 'warp'");
    }
}
