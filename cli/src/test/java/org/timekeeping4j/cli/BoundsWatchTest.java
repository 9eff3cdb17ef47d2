package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/** tk4j bounds --watch: the process's bounded clock on this host, and a ClockBound segment the test changes. */
class BoundsWatchTest {

    /** A watch line: UTC to the microsecond, the status, the width class (with the half-width), the source. */
    private static final String LINE = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z  "
            + "(SYNCHRONIZED|FREE_RUNNING|DISRUPTED|UNKNOWN) *  (unbounded|(<1us|<10us|<100us|<1ms|<10ms|<100ms|<1s"
            + "|<10s|<100s|>=100s) \\([0-9.]+ (ns|us|ms|s)\\))  \\S.*";

    @TempDir
    Path dir;

    @Test
    void watchingTheSystemClockPrintsItsStateFirstAndEndsAfterTheDuration() {
        Tk4jHarness r = Tk4jHarness.run("bounds", "--watch", "-t", "0.3", "--interval", "10");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.err()).isEmpty();
        List<String> lines = r.unfolded().lines().toList();
        assertThat(lines).as(r.out()).isNotEmpty().allMatch(l -> l.matches(LINE));
        // The state first, whatever this host's: the source the one-shot command names.
        String source = Tk4jHarness.prose(Tk4jHarness.run("bounds", "--json").json().get("source"));
        assertThat(lines.get(0)).contains("  " + BoundsCommand.sourceOf(source));
        assertThat(r.out().lines()).allMatch(l -> l.length() <= Terminal.DEFAULT);
    }

    /** The ClockBound daemon's status changes under the watch: one line for it, none while nothing changes. */
    @Test
    void aChangeOfStatusIsOneLine() throws Exception {
        Path shm = dir.resolve("shm0");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment segment = writeSegment(shm, arena);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> Tk4j.run(Terminal.Source.NONE,
                    new PrintWriter(out), new PrintWriter(err), "bounds", "--shm", shm.toString(), "--watch",
                    "--duration", "3", "--interval", "5"));
            await("the watch's first line").atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString().contains("SYNCHRONIZED") || watching.isDone());
            segment.set(ValueLayout.JAVA_INT, 68, 3); // clock_status: disrupted
            await("the watch seeing DISRUPTED").atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString().contains("DISRUPTED") || watching.isDone());
            Tk4jHarness r = new Tk4jHarness(watching.get(), out.toString(), err.toString());
            assertThat(r.exit()).as(r.toString()).isZero();
            List<String> lines = r.unfolded().lines().toList();
            assertThat(lines).as(r.out()).hasSize(2).allMatch(l -> l.matches(LINE));
            assertThat(lines.get(0)).endsWith("Z  SYNCHRONIZED  <10us (5.000 us)  clockbound " + shm);
            assertThat(lines.get(1)).endsWith("Z  DISRUPTED     <10us (5.000 us)  clockbound " + shm);
        }
    }

    @Test
    void badWatchOptionsAreOneLineOfUsage() {
        for (String[] args : new String[][] {
                {"bounds", "--watch", "--interval", "0"},
                {"bounds", "--watch", "--interval", "60001"},
                {"bounds", "--watch", "--interval", "fast"},
                {"bounds", "--watch", "-t", "0"},
                {"bounds", "--watch", "--duration", "3601"},
                {"bounds", "--interval", "10"},
                {"bounds", "-t", "1"},
                {"bounds", "--watch", "--json"}}) {
            Tk4jHarness r = Tk4jHarness.run(args);
            assertThat(r.exit()).as(r.toString()).isEqualTo(Tk4j.EXIT_USAGE);
            assertThat(r.err().lines()).as(r.toString()).hasSize(1);
            assertThat(r.out()).isEmpty();
        }
        assertThat(Tk4jHarness.run("bounds", "--watch", "--interval", "0").err())
                .startsWith("tk4j: --interval 0: give 1..60000");
        assertThat(Tk4jHarness.run("bounds", "--interval", "10").err())
                .startsWith("tk4j: --interval applies only with --watch");
    }

    /**
     * A ClockBound v2 segment (bound 5 us, no drift, so the width stays in its class; SYNCHRONIZED as of now, for
     * the 5 s grace period), mapped for the test to change.
     */
    private static MemorySegment writeSegment(Path file, Arena arena) throws IOException {
        long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.allocate(80));
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 80, arena);
            s.set(ValueLayout.JAVA_INT, 0, 0x414D5A4E);
            s.set(ValueLayout.JAVA_INT, 4, 0x43420200);
            s.set(ValueLayout.JAVA_INT, 8, 80);
            s.set(ValueLayout.JAVA_SHORT, 12, (short) 2);
            s.set(ValueLayout.JAVA_SHORT, 14, (short) 2);
            s.set(ValueLayout.JAVA_LONG, 16, mono / 1_000_000_000L);
            s.set(ValueLayout.JAVA_LONG, 24, mono % 1_000_000_000L);
            s.set(ValueLayout.JAVA_LONG, 32, mono / 1_000_000_000L + 3600);
            s.set(ValueLayout.JAVA_LONG, 48, 5_000);
            s.set(ValueLayout.JAVA_INT, 64, 0);
            s.set(ValueLayout.JAVA_INT, 68, 1);
            return s;
        }
    }
}
