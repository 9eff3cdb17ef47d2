package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.linux.DeviceSyscalls;

/** tk4j phc, pps and bounds through Tk4j.run; no PTP/PPS hardware here, so phc and pps cover errors only. */
class DeviceCommandsTest {

    @TempDir
    Path dir;


    /**
     * qemu-user (the emulated aarch64 JVM of scripts/arm64.sh) answers the ioctls it does not translate with
     * ENOSYS, which a kernel never returns for /dev/null: those runs say so instead of checking ENOTTY.
     */
    private static void assumeAKernelAnswered(Tk4jHarness r) {
        org.junit.jupiter.api.Assumptions.assumeFalse(r.err().contains("ENOSYS"),
                "the ioctl did not reach a kernel (ENOSYS from qemu-user): needs a real kernel");
    }

    @Test
    void phcOnAFileThatIsNoPtpClockSaysEnottyOnOneLine() {
        Tk4jHarness r = Tk4jHarness.run("phc", "/dev/null");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assumeAKernelAnswered(r);
        assertThat(r.err()).isEqualTo("tk4j: /dev/null: not a PTP hardware clock (PTP_CLOCK_GETCAPS: ENOTTY)"
                + System.lineSeparator());
    }

    @Test
    void phcOnAMissingDeviceSaysEnoent() {
        Tk4jHarness r = Tk4jHarness.run("phc", dir.resolve("ptp0").toString(), "--samples", "3");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertThat(r.err()).contains("open failed: ENOENT");
    }

    @Test
    void phcRejectsBadOptionsAsUsage() {
        assertThat(Tk4jHarness.run("phc", "/dev/null", "--samples", "0").exit()).isEqualTo(Tk4j.EXIT_USAGE);
        Tk4jHarness r = Tk4jHarness.run("phc", "/dev/null", "--clock", "SUNDIAL");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err()).contains("--clock").contains("'SUNDIAL': no clock");
    }

    @Test
    void ppsOnAFileThatIsNoPpsSourceSaysEnotty() {
        Tk4jHarness r = Tk4jHarness.run("pps", "/dev/null");
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assumeAKernelAnswered(r);
        assertThat(r.err()).startsWith("tk4j: /dev/null: not a PPS source").contains("ENOTTY");
    }

    @Test
    void boundsFromAClockBoundSegment() throws IOException {
        Path shm = dir.resolve("shm0");
        writeSegment(shm, 0x414D5A4E, 2);
        Tk4jHarness r = Tk4jHarness.run("bounds", "--shm", shm.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("earliest  ", "latest    ", "width     ", "status    ",
                "source    clockbound " + shm);
        assertThat(r.out()).containsPattern("status    (SYNCHRONIZED|FREE_RUNNING)");
        long width = Long.parseLong(r.out().replaceAll("(?s).*width\\s+(\\d+) ns.*", "$1"));
        assertThat(width).isGreaterThanOrEqualTo(2 * 5_000);
    }

    @Test
    void boundsJsonCarriesTheSameBoundsAsTheLines() throws Exception {
        Path shm = dir.resolve("shm0");
        writeSegment(shm, 0x414D5A4E, 2);
        Tk4jHarness r = Tk4jHarness.run("bounds", "--shm", shm.toString(), "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        long earliest = j.get("earliestNanos").asLong();
        long latest = j.get("latestNanos").asLong();
        assertThat(latest - earliest).isEqualTo(j.get("widthNanos").asLong()).isGreaterThanOrEqualTo(2 * 5_000);
        assertThat(j.get("status").asText()).matches("SYNCHRONIZED|FREE_RUNNING");
        assertThat(Tk4jHarness.prose(j.get("source"))).isEqualTo("clockbound " + shm);
    }

    /** phc and pps over a simulated kernel: the JSON carries what the lines print. */
    @Test
    void phcAndPpsJsonOverASimulatedDevice() throws Exception {
        DeviceSyscalls.use(new SimulatedDevices());
        try {
            Tk4jHarness lines = Tk4jHarness.run("phc", SimulatedDevices.PTP, "--samples", "2");
            assertThat(lines.exit()).as(lines.err()).isZero();
            assertThat(lines.out()).contains("CLOCK_REALTIME offset    -37000 ns delay      0 ns method PRECISE");
            Tk4jHarness phc = Tk4jHarness.run("phc", SimulatedDevices.PTP, "--samples", "2", "--json");
            assertThat(phc.exit()).as(phc.err()).isZero();
            com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(phc.out());
            assertThat(j.get("device").asText()).isEqualTo(SimulatedDevices.PTP);
            assertThat(j.get("clock").asText()).isEqualTo("CLOCK_REALTIME");
            assertThat(j.get("capabilities").get("maxAdjustmentPpb").asInt()).isEqualTo(500_000);
            assertThat(j.get("capabilities").get("crossTimestamping").asBoolean()).isTrue();
            assertThat(j.get("measurements")).hasSize(2);
            for (com.fasterxml.jackson.databind.JsonNode m : j.get("measurements")) {
                assertThat(m.get("offsetNanos").asLong()).isEqualTo(-SimulatedDevices.PHC_AHEAD_NANOS);
                assertThat(m.get("method").asText()).isEqualTo("PRECISE");
            }

            Tk4jHarness pps = Tk4jHarness.run("pps", SimulatedDevices.PPS, "--count", "3", "--json");
            assertThat(pps.exit()).as(pps.err()).isZero();
            com.fasterxml.jackson.databind.JsonNode p = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(pps.out());
            assertThat(p.get("capabilities").asInt()).isEqualTo(0x1133);
            assertThat(p.get("capabilityNames").toString()).isEqualTo(
                    "[\"CAPTUREASSERT\",\"CAPTURECLEAR\",\"OFFSETASSERT\",\"OFFSETCLEAR\",\"CANWAIT\",\"TSFMT_TSPEC\"]");
            // Folded to the terminal's 80 columns: the last names go on an indented line of their own.
            assertThat(Tk4jHarness.run("pps", SimulatedDevices.PPS, "--count", "1").out()).contains(SimulatedDevices.PPS
                    + ": capabilities 0x1133 CAPTUREASSERT CAPTURECLEAR OFFSETASSERT" + System.lineSeparator()
                    + "  OFFSETCLEAR CANWAIT TSFMT_TSPEC" + System.lineSeparator());
            assertThat(p.get("events")).hasSize(3);
            assertThat(p.get("events").get(2).get("assertSequence").asLong()).isEqualTo(3);
            assertThat(p.get("events").get(2).get("assertEpochNanos").asLong())
                    .isEqualTo((1_700_000_000L + 3) * 1_000_000_000L + 250);
            assertThat(p.get("error").isNull()).isTrue();
        } finally {
            DeviceSyscalls.use(DeviceSyscalls.linux());
        }
    }

    @Test
    void phcAndPpsOfferJsonAndListEveryClockTheyAccept() {
        String phc = Tk4jHarness.run("phc", "--help").out().replaceAll("\\s+", " ");
        assertThat(phc).contains("--json").contains("REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI")
                .contains("CLOCK_AUX+0").contains("CLOCK_AUX+7");
        for (String clock : new String[] {"BOOTTIME", "TAI", "CLOCK_AUX+0", "MONOTONIC_RAW"}) {
            // Accepted: the run gets as far as the device (no PTP clock here), not a usage error.
            assertThat(Tk4jHarness.run("phc", "/dev/null", "--clock", clock).exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        }
        assertThat(Tk4jHarness.run("pps", "--help").out()).contains("--json");
    }

    @Test
    void boundsWithABadSegmentFailsOnOneLine() throws IOException {
        Path shm = dir.resolve("shm0");
        writeSegment(shm, 0x0BADF00D, 2);
        Tk4jHarness r = Tk4jHarness.run("bounds", "--shm", shm.toString());
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertThat(r.unfoldedErr()).startsWith("tk4j: " + shm + ": not ClockBound v2 (magic 0x0BADF00D")
                .hasLineCount(1);
        writeSegment(shm, 0x414D5A4E, 7);
        assertThat(Tk4jHarness.run("bounds", "--shm", shm.toString()).unfoldedErr())
                .contains("unsupported ClockBound segment version 7");
        assertThat(Tk4jHarness.run("bounds", "--shm", dir.resolve("none").toString()).err()).contains("ENOENT");
    }

    @Test
    void boundsWithoutShmShouldServeTheSourceTheProcessChose() throws Exception {
        // What auto chose here (a ClockBound segment, chronyd on 127.0.0.1:323, else adjtimex), as the library
        // says it: the command runs in this process, so it serves the same BoundedClock.system().
        Tk4jHarness r = Tk4jHarness.run("bounds");
        String chosen = org.timekeeping4j.device.BoundedClock.system().description();
        chosen = chosen.substring(0, chosen.indexOf(", served"));
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("source    " + chosen, "status    ");
        assertThat(org.timekeeping4j.Clocks.diagnostics().bounds()).startsWith(chosen + " (");
    }

    /** A ClockBound v2 segment as the protocol documents it, as_of = now (MONOTONIC_COARSE). */
    private static void writeSegment(Path file, int magic0, int version) throws IOException {
        long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING); Arena arena = Arena.ofConfined()) {
            ch.write(java.nio.ByteBuffer.allocate(80));
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 80, arena);
            s.set(ValueLayout.JAVA_INT, 0, magic0);
            s.set(ValueLayout.JAVA_INT, 4, 0x43420200);
            s.set(ValueLayout.JAVA_INT, 8, 80);
            s.set(ValueLayout.JAVA_SHORT, 12, (short) version);
            s.set(ValueLayout.JAVA_SHORT, 14, (short) 2);
            s.set(ValueLayout.JAVA_LONG, 16, mono / 1_000_000_000L);
            s.set(ValueLayout.JAVA_LONG, 24, mono % 1_000_000_000L);
            s.set(ValueLayout.JAVA_LONG, 32, mono / 1_000_000_000L + 3600);
            s.set(ValueLayout.JAVA_LONG, 40, 0);
            s.set(ValueLayout.JAVA_LONG, 48, 5_000);
            s.set(ValueLayout.JAVA_INT, 64, 15_000);
            s.set(ValueLayout.JAVA_INT, 68, 1);
        }
    }
}
