package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The reader against another process that publishes this machine's counter and CLOCK_TAI into a file-backed page
 * once a second ({@link VmClockWriterMain}): every read, bracketed by two CLOCK_TAI reads, lies within the bound
 * the page publishes.
 */
class VmClockWriterProcessTest {

    private static final int UPDATES = 6;

    @TempDir
    Path dir;

    @Test
    void everyReadIsWithinThePublishedBoundOfClockTai() throws Exception {
        assumeThat(VmClock.COUNTER_HERE).as("an architecture with a counter read").isNotNegative();
        Path page = dir.resolve("vmclock-page");
        Path log = dir.resolve("writer.log");
        Process writer = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:-UsePerfData", "-cp",
                System.getProperty("java.class.path"), VmClockWriterMain.class.getName(), page.toString(),
                Integer.toString(UPDATES)))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            waitForFirstUpdate(page, writer, log);
            List<String> misses = new ArrayList<>();
            long reads = 0;
            long worst = 0;
            long lastSeq = -1;
            int updatesSeen = 0;
            TimeBounds b = new TimeBounds();
            try (VmClock clock = VmClock.open(page)) {
                while (writer.isAlive()) {
                    for (int i = 0; i < 1000; i++) {
                        long t0 = ClockGettimeStub.clockGettimeNanos(ClockId.TAI.id());
                        clock.now(b, ClockId.TAI);
                        long t1 = ClockGettimeStub.clockGettimeNanos(ClockId.TAI.id());
                        reads++;
                        // True time was somewhere in [t0, t1]; the page says it is in [earliest, latest].
                        if (b.earliestNanos() > t1 || b.latestNanos() < t0) {
                            if (misses.size() < 10) {
                                misses.add(b + " against CLOCK_TAI [" + t0 + ", " + t1 + "]");
                            }
                        }
                        // How far the page's own time lies outside the bracket: its real error, at most.
                        worst = Math.max(worst, Math.max(0, Math.max(b.nanos() - t1, t0 - b.nanos())));
                    }
                    long seq = Integer.toUnsignedLong(clock.page().seqCount());
                    if (seq != lastSeq) {
                        updatesSeen++;
                        lastSeq = seq;
                    }
                    Thread.sleep(5); // pacing: batches of reads all through the writer's run, which ends the loop
                }
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(writer.exitValue()).as(out).isZero();
            assertThat(misses).as("reads outside the published bound (of %d; writer: %s)", reads, out).isEmpty();
            assertThat(updatesSeen).as("updates seen; writer: " + out).isGreaterThanOrEqualTo(UPDATES - 1);
            assertThat(reads).isGreaterThan(1000);
            System.out.println("VmClockWriterProcessTest: " + reads + " reads over " + updatesSeen
                    + " updates, 0 outside the bound; page time at most " + worst + " ns outside its CLOCK_TAI bracket");
        } finally {
            writer.destroyForcibly();
            writer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void waitForFirstUpdate(Path page, Process writer, Path log) throws Exception {
        org.awaitility.Awaitility.await("the writer's first update").atMost(java.time.Duration.ofSeconds(30))
                .pollInterval(java.time.Duration.ofMillis(50)).until(() -> published(page) || !writer.isAlive());
        if (!published(page)) {
            throw new AssertionError("the writer published nothing: " + Files.readString(log));
        }
    }

    /** Whether the page holds a first update (seq_count 2 or more); false while the writer is creating it. */
    private static boolean published(Path page) throws Exception {
        if (!Files.exists(page) || Files.size(page) < 4096) {
            return false;
        }
        try (VmClock clock = VmClock.open(page)) {
            return clock.page().seqCount() >= 2;
        } catch (DeviceException e) {
            return false; // the writer is still creating the file
        }
    }
}
