package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * Every bad value is refused before any work, with exit 2 and one line on stderr naming the option and
 * its valid range, and nothing on stdout (no run happened). Missing devices get their own exit code, 4.
 */
class BadInputTest {

    @TempDir
    Path dir;

    /** Exit 2, one line naming {@code option} and {@code range}, nothing measured (stdout empty). */
    private static void assertUsage(String option, String range, String... args) {
        Tk4jHarness r = Tk4jHarness.run(args);
        assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.out()).as(r.toString()).isEmpty();
        assertOneMessageThatFits(r);
        assertThat(r.unfoldedErr()).as(r.toString()).contains(option).contains(range);
    }

    /**
     * One message on stderr, each of its lines within the default width: a message longer than that (one naming a
     * long path, or carrying the kernel's reason) folds, its continuation indented by two blanks.
     */
    static void assertOneMessageThatFits(Tk4jHarness r) {
        assertThat(r.unfoldedErr().lines()).as(r.toString()).hasSize(1);
        assertThat(r.err().lines()).as(r.toString()).allMatch(l -> l.length() <= Terminal.DEFAULT);
    }

    @ParameterizedTest
    @CsvSource({"NaN", "Infinity", "-Infinity", "-1", "0", "1e9"})
    void verifyDurationOutsideItsRangeIsUsage(String value) {
        assertUsage("--duration", "at most 3600", "verify", "consistency", "-t", value);
        assertUsage("--duration", "at most 3600", "verify", "all", "--duration", value);
    }

    @ParameterizedTest
    @CsvSource({"0", "-1", "5000"})
    void verifyThreadsOutsideItsRangeIsUsage(String value) {
        assertUsage("--threads", "1.." + Validate.maxThreads(), "verify", "causality", "-t", "0.1", "--threads", value);
    }

    @ParameterizedTest
    @CsvSource({"--flip-ms,0,at most 60000", "--flip-ms,-5,at most 60000", "--flip-ms,NaN,at most 60000",
            "--ppm,0,1..500", "--ppm,-5,1..500", "--ppm,501,1..500"})
    void skewFlipAndPpmOutsideTheirRangesAreUsage(String option, String value, String range) {
        assertUsage(option, range, "verify", "skew", "-t", "0.1", option, value);
    }

    @Test
    void anExplicitSkewFlipLongerThanATenthOfTheRunIsUsageNotClampedSilently() {
        assertUsage("--flip-ms", "at most 300 ms", "verify", "skew", "--flip-ms", "5000", "-t", "3");
    }

    /** A run that would check nothing is no pass: causality on THREAD_CPUTIME_ID printed "0 OK, 0 FAILED", exit 0. */
    @Test
    void causalityOnAPerThreadClockIsUsageNotAnEmptyPass() {
        assertUsage("CLOCK_THREAD_CPUTIME_ID", "a thread's own clock", "verify", "causality", "-c",
                "THREAD_CPUTIME_ID");
        assertThat(VerifyCommand.exitCode(java.util.List.of())).isEqualTo(Tk4j.EXIT_SKIPPED);
    }

    @Test
    void verifyWithoutAModeTakesTheOptionsOfAll() {
        Tk4jHarness r = Tk4jHarness.run("verify", "-t", "0.4", "--path", "kernel", "-c", "MONOTONIC");
        assertThat(r.exit()).as(r.toString()).isNotEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.out()).as(r.toString()).contains("verify all: ").contains("consistency kernel CLOCK_MONOTONIC");
    }

    @Test
    void optionsBeforeTheModeAreRefusedNotDropped() {
        assertUsage("--duration", "goes after the mode", "verify", "-t", "0.4", "consistency");
    }

    @Test
    void anHtmlFileTheFileSystemRefusesIsUsageBeforeTheRun() {
        // Root passes the permission check and is refused by the probe (/proc takes no new files); any other user
        // is refused by the permission bits already: either is one line before the run.
        String why = Files.isWritable(Path.of("/proc")) ? "cannot be created in /proc" : "directory /proc is not writable";
        assertUsage("--html /proc/x.html", why, "bench", "-c", "MONOTONIC", "--html", "/proc/x.html");
    }

    @ParameterizedTest
    @CsvSource({"verfy,verify", "benc,bench"})
    void aMistypedCommandGetsADidYouMean(String typed, String meant) {
        assertUsage(typed, "did you mean '" + meant + "'?", typed);
    }

    @Test
    void aMistypedOptionGetsADidYouMean() {
        assertUsage("--pth", "did you mean '--path'", "bench", "--pth", "kernel");
        assertUsage("consistncy", "did you mean 'consistency'", "verify", "consistncy");
    }

    @Test
    void skewRefusesPathAndClocksItsTimekeeperDoesNotServe() {
        assertUsage("--path", "skew", "verify", "skew", "-t", "0.1", "--path", "kernel");
        Tk4jHarness r = Tk4jHarness.run("verify", "skew", "-t", "0.1", "-c", "PROCESS_CPUTIME_ID");
        assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
        assertOneMessageThatFits(r);
        assertThat(r.err()).contains("CLOCK_PROCESS_CPUTIME_ID");
    }

    @ParameterizedTest
    @CsvSource({"--duration,NaN,at most 60", "--duration,0,at most 60", "--duration,1e9,at most 60",
            "--warmup,-1,at most 60", "--warmup,Infinity,at most 60", "--batch,0,1..1000000",
            "--batch,2000000,1..1000000"})
    void benchOptionsOutsideTheirRangesAreUsage(String option, String value, String range) {
        assertUsage(option, range, "bench", "-c", "MONOTONIC", option, value);
    }

    @Test
    void benchChecksItsHtmlFileBeforeTheRun() throws Exception {
        assertUsage("--html", "does not exist", "bench", "-c", "MONOTONIC", "--html", "/nonexistent/dir/b.html");
        assertUsage("--html", "is a directory", "bench", "-c", "MONOTONIC", "--html", dir.toString());
        Path readOnly = Files.createDirectory(dir.resolve("ro"));
        if (readOnly.toFile().setWritable(false) && !Files.isWritable(readOnly)) { // root may write anyway
            assertUsage("--html", "is not writable", "bench", "-c", "MONOTONIC", "--html",
                    readOnly.resolve("b.html").toString());
        }
    }

    @ParameterizedTest
    @CsvSource({"--timeout,NaN,at most 3600", "--timeout,-1,at most 3600", "--timeout,Infinity,at most 3600",
            "--count,0,1..1000000"})
    void ppsOptionsOutsideTheirRangesAreUsage(String option, String value, String range) {
        assertUsage(option, range, "pps", "/dev/null", option, value);
    }

    @ParameterizedTest
    @CsvSource({"--samples,0,1..1000000", "--interval,-1,0..3600000", "--clock,PROCESS_CPUTIME_ID,MONOTONIC_RAW"})
    void phcOptionsOutsideTheirRangesAreUsage(String option, String value, String range) {
        assertUsage(option, range, "phc", "/dev/null", option, value);
    }

    @Test
    void captureTakesTheCountItsHelpPrintsAndRefusesOthersAsUsage() {
        assertUsage("--iterations", "1000..100000000", "capture", "-n", "10");
        assertUsage("--iterations", "1000..100000000", "capture", "-n", "1000M");
        assertUsage("--iterations", "1M", "capture", "-n", "lots");
        assertThat(new CountConverter().convert("1M")).isEqualTo(1_000_000L);
        assertThat(new CountConverter().convert("500k")).isEqualTo(500_000L);
        assertThat(new CountConverter().convert("1_000")).isEqualTo(1_000L);
    }

    @ParameterizedTest
    @CsvSource({"NaN", "0", "-3", "1e9"})
    void theMainJobsBudgetOutsideItsRangeIsUsage(String value) {
        assertUsage("--budget", "at most 3600", "--budget", value);
    }

    /** Every name tk4j info prints is accepted by -c. */
    @Test
    void everyKernelNameIsAClockName() {
        ClockConverter c = new ClockConverter();
        for (ClockId id : ClockId.values()) {
            assertThat(c.convert(id.kernelName())).isEqualTo(id);
            assertThat(c.convert(id.name())).isEqualTo(id);
            assertThat(c.convert(String.valueOf(id.id()))).isEqualTo(id);
        }
    }

    /** A kernel id that is no clock names the valid ids, or what the id is instead. */
    @ParameterizedTest
    @CsvSource({"10, CLOCK_SGI_CYCLE", "12, ids 0-9, 11, 16-23", "-1, a CPU-time or fd clock", "1000, ids 0-9"})
    void aNumericIdThatIsNoClockSaysWhy(String id, String why) {
        assertThatThrownBy(() -> new ClockConverter().convert(id))
                .hasMessageStartingWith("'" + id + "' ")
                .hasMessageContaining(why);
        assertThatThrownBy(() -> new ClockConverter().convert("4294967296")).hasMessageContaining("beyond a clockid_t");
    }

    /** A clock that cannot be read here says why (AUX disabled, no RTC), not "served by none of the paths". */
    @Test
    void anUnreadableClockGivesItsRealReason() {
        for (ClockId id : new ClockId[] {ClockId.AUX_0, ClockId.REALTIME_ALARM}) {
            Optional<String> why = Clocks.whyUnsupported(id);
            Tk4jHarness r = Tk4jHarness.run("verify", "consistency", "-t", "0.1", "-c", id.kernelName());
            if (why.isEmpty()) { // readable on this machine: it is checked
                assertThat(r.exit()).as(r.toString()).isNotEqualTo(Tk4j.EXIT_USAGE);
                continue;
            }
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
            assertOneMessageThatFits(r);
            assertThat(r.unfoldedErr()).contains(why.get()).doesNotContain("served by none");
        }
    }

    @Test
    void aMissingOrUnusableDeviceHasItsOwnExitCode() {
        Tk4jHarness missing = Tk4jHarness.run("phc", dir.resolve("ptp9").toString());
        assertThat(missing.exit()).as(missing.toString()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertOneMessageThatFits(missing);
        Tk4jHarness notPtp = Tk4jHarness.run("phc", "/dev/null", "--json");
        assertThat(notPtp.exit()).as(notPtp.toString()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        Tk4jHarness notPps = Tk4jHarness.run("pps", "/dev/null", "--json");
        assertThat(notPps.exit()).as(notPps.toString()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        Tk4jHarness noSegment = Tk4jHarness.run("bounds", "--shm", dir.resolve("shm9").toString(), "--json");
        assertThat(noSegment.exit()).as(noSegment.toString()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertThat(Tk4jHarness.run("--help").out().replaceAll("\\s+", " ")).contains("4 a device is missing or unusable");
    }
}
