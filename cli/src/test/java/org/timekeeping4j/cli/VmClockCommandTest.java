package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.device.VmClock;

/** tk4j vmclock over pages the test writes into files, and the line tk4j info would print. */
class VmClockCommandTest {

    @TempDir
    Path dir;


    /** A page as the header lays it out (literal offsets), seq_count 2; the mapping stays for updates. */
    static final class Page implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment s;

        Page(Path file, int counterId, int status, long flags, long marker) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.allocate(4096));
                s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            }
            s.set(ValueLayout.JAVA_INT, 0x00, 0x4b4c4356);
            s.set(ValueLayout.JAVA_INT, 0x04, 4096);
            s.set(ValueLayout.JAVA_SHORT, 0x08, (short) 1);
            s.set(ValueLayout.JAVA_BYTE, 0x0a, (byte) counterId);
            s.set(ValueLayout.JAVA_INT, 0x0c, 2);
            s.set(ValueLayout.JAVA_LONG, 0x10, marker);
            s.set(ValueLayout.JAVA_LONG, 0x18, flags);
            s.set(ValueLayout.JAVA_BYTE, 0x22, (byte) status);
            s.set(ValueLayout.JAVA_LONG, 0x48, 1_700_000_000L); // period 0: this time whatever the counter
            s.set(ValueLayout.JAVA_LONG, 0x60, 2_000);
        }

        /** One seqlock update of the marker (a loadvm). */
        void marker(long value) {
            int seq = s.get(ValueLayout.JAVA_INT, 0x0c);
            s.set(ValueLayout.JAVA_INT, 0x0c, seq + 1);
            java.lang.invoke.VarHandle.storeStoreFence();
            s.set(ValueLayout.JAVA_LONG, 0x10, value);
            java.lang.invoke.VarHandle.releaseFence();
            s.set(ValueLayout.JAVA_INT, 0x0c, seq + 2);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    @Test
    void decodesAQemuPage() throws Exception {
        Path file = dir.resolve("vmclock0");
        try (Page p = new Page(file, 0xff, 0, 0, 1)) {
            Tk4jHarness r = Tk4jHarness.run("vmclock", file.toString());
            assertThat(r.err()).isEmpty();
            assertThat(r.exit()).isZero();
            assertThat(r.unfolded()).contains(
                    "page            " + file + ": 4096 bytes, version 1, seq_count 2",
                    "clock status    UNKNOWN", "counter         INVALID", "time type       UTC",
                    "flags           0x0 (none)", "disruption      marker 1",
                    "vm generation   absent (no VM_GEN_COUNTER_PRESENT)",
                    "now             not served: clock_status UNKNOWN");
            assertThat(r.out().lines()).allMatch(l -> l.length() <= Terminal.DEFAULT);
        }
    }

    @Test
    void decodesAServingPageWithItsTimeAndBound() throws Exception {
        assumeThat(System.getProperty("os.arch")).isIn("amd64", "x86_64", "aarch64");
        Path file = dir.resolve("page");
        int here = System.getProperty("os.arch").equals("aarch64") ? 0 : 1;
        long flags = VmClock.FLAG_TIME_MAXERROR_VALID | VmClock.FLAG_PERIOD_MAXERROR_VALID
                | VmClock.FLAG_VM_GEN_COUNTER_PRESENT | 0x3FF;
        try (Page p = new Page(file, here, 2, flags, 7)) {
            Tk4jHarness r = Tk4jHarness.run("vmclock", file.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("clock status    SYNCHRONIZED", "vm generation   0",
                    "now             2023-11-14T22:13:20Z UTC +/- 2000 ns, SYNCHRONIZED");
            assertThat(r.unfolded()).contains("flags           0x3ff TAI_OFFSET_VALID DISRUPTION_SOON");
            assertThat(r.out().lines()).allMatch(l -> l.length() <= Terminal.DEFAULT);
            Tk4jHarness j = Tk4jHarness.run("vmclock", file.toString(), "--json");
            var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(j.out());
            assertThat(json.get("nanos").asLong()).isEqualTo(1_700_000_000_000_000_000L);
            assertThat(json.get("latestNanos").asLong()).isEqualTo(1_700_000_000_000_002_000L);
            assertThat(json.get("disruptionMarker").asText()).isEqualTo("7");
            assertThat(json.get("clockStatus").asText()).isEqualTo("SYNCHRONIZED");
        }
    }

    @Test
    void watchPrintsEachDisruptionWithTheTimeSeen() throws Exception {
        Path file = dir.resolve("vmclock0");
        try (Page p = new Page(file, 0xff, 0, 0, 1)) {
            // The watch's output as it prints it (StringWriter: a StringBuffer, safe to read meanwhile): each update
            // comes once the watch has seen the one before, whatever the machine's speed.
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> Tk4j.run(Terminal.Source.NONE,
                    new PrintWriter(out), new PrintWriter(err), "vmclock", file.toString(), "--watch", "--seconds", "3",
                    "--interval", "10"));
            // Folded to the width: a line continues on the next after blanks.
            java.util.function.Supplier<String> seen = () -> out.toString().replaceAll("\\R {4,}", " ");
            await("the watch's first look").atMost(Duration.ofSeconds(30))
                    .until(() -> seen.get().contains("watching ") || watching.isDone());
            p.marker(2);
            await("the watch seeing marker 2").atMost(Duration.ofSeconds(30))
                    .until(() -> seen.get().contains("disruption marker 1 -> 2") || watching.isDone());
            p.marker(3);
            Tk4jHarness r = new Tk4jHarness(watching.get(), out.toString(), err.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.unfolded()).containsPattern("watching " + file + ": marker 1, generation absent, status "
                    + "UNKNOWN \\(looking every 10 ms\\)");
            assertThat(r.out()).containsPattern("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z  disruption marker 1 -> 2\\R");
            assertThat(r.out()).containsPattern("Z  disruption marker 2 -> 3\\R");
        }
    }

    @Test
    void badPagesAndOptionsSayWhatIsWrongInOneLine() throws Exception {
        Path missing = dir.resolve("vmclock9");
        Tk4jHarness r = Tk4jHarness.run("vmclock", missing.toString());
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertThat(r.unfoldedErr()).isEqualTo("tk4j: " + missing + ": open failed: ENOENT (No such file or directory)"
                + System.lineSeparator());
        Path bad = dir.resolve("bad");
        Files.write(bad, new byte[4096]);
        r = Tk4jHarness.run("vmclock", bad.toString());
        assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
        assertThat(r.unfoldedErr()).isEqualTo("tk4j: " + bad + ": not a VMClock page (magic 0x00000000, not \"VCLK\")"
                + System.lineSeparator());
        assertThat(Tk4jHarness.run("vmclock", bad.toString(), "--interval", "0").exit()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(Tk4jHarness.run("vmclock", bad.toString(), "--seconds", "-1").exit()).isEqualTo(Tk4j.EXIT_USAGE);
    }

    @Test
    void infoLineNamesThePageOrTheMissingDriver() throws Exception {
        Path dev = Files.createDirectories(dir.resolve("dev"));
        Path acpi = Files.createDirectories(dir.resolve("acpi"));
        assertThat(VmClockCommand.infoLine(dev, acpi)).isEmpty();
        Files.createDirectories(acpi.resolve("AMZNC10C:00"));
        assertThat(VmClockCommand.infoLine(dev, acpi)).contains(
                "AMZNC10C has no driver: modprobe ptp_vmclock");
        Files.createDirectories(acpi.resolve("AMZNC10C:00/physical_node/driver"));
        assertThat(VmClockCommand.infoLine(dev, acpi).orElseThrow()).startsWith("AMZNC10C has its driver, no /dev/vmclockN");
        Files.createFile(dev.resolve("vmclock0"));
        assertThat(VmClockCommand.infoLine(dev, acpi)).contains("VMClock found at " + dev.resolve("vmclock0"));
    }

    /** This machine kind: a Firecracker guest whose ACPI lists AMZNC10C and whose kernel has no driver. */
    @Test
    void infoLineOnThisMachine() {
        Optional<String> line = VmClockCommand.infoLine();
        System.out.println("VmClockCommand.infoLine() here: " + line.orElse("(nothing)"));
        if (Files.exists(Path.of("/sys/bus/acpi/devices/AMZNC10C:00")) && !Files.exists(Path.of("/dev/vmclock0"))
                && !Files.exists(Path.of("/sys/bus/acpi/devices/AMZNC10C:00/physical_node/driver"))) {
            assertThat(line).contains(VmClockCommand.NO_DRIVER);
            Tk4jHarness r = Tk4jHarness.run("vmclock");
            assertThat(r.exit()).isEqualTo(Tk4j.EXIT_UNAVAILABLE);
            assertThat(r.err()).isEqualTo("tk4j: /dev/vmclock0: missing; " + VmClockCommand.NO_DRIVER
                    + System.lineSeparator());
        }
    }
}
