package org.timekeeping4j.benchmarks;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.TimeBounds;
import org.timekeeping4j.device.VmClock;

/**
 * A VMClock read (the page's TAI and its bound at one counter read) against Clocks.nanos(TAI) in the same run, and
 * the disruption check. No hypervisor publishes the time fields today, so the page is a file on /dev/shm written
 * here once: this machine's counter (X86_TSC or ARM_VCNT), SYNCHRONIZED, TAI, a 3 GHz period with both maximum
 * error flags valid; the read's cost does not depend on the values.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar VmClockBenchmark -f 1 -wi 3 -i 5 -prof gc
 * </pre>
 * Every read here must show 0 B/op under {@code -prof gc}.
 */
public class VmClockBenchmark extends PerCallBenchmark {

    /** The page file, mapped by the reader. */
    @State(Scope.Benchmark)
    public static class Page {
        Path file;
        VmClock clock;
        long marker;
        long generation;

        @Setup(Level.Trial)
        public void write() throws IOException, DeviceException {
            Path shm = Path.of("/dev/shm");
            file = Files.createTempFile(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                    "vmclock-bench", ".page");
            boolean arm = System.getProperty("os.arch").equals("aarch64");
            long period = BigInteger.ONE.shiftLeft(64).divide(BigInteger.valueOf(3_000_000_000L)).longValue();
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                 Arena arena = Arena.ofConfined()) {
                ch.write(ByteBuffer.allocate(4096));
                MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
                s.set(ValueLayout.JAVA_INT, 0x00, 0x4b4c4356);
                s.set(ValueLayout.JAVA_INT, 0x04, 4096);
                s.set(ValueLayout.JAVA_SHORT, 0x08, (short) 1);
                s.set(ValueLayout.JAVA_BYTE, 0x0a, (byte) (arm ? 0 : 1));
                s.set(ValueLayout.JAVA_BYTE, 0x0b, (byte) 1); // TAI
                s.set(ValueLayout.JAVA_INT, 0x0c, 2);
                s.set(ValueLayout.JAVA_LONG, 0x10, 1);
                s.set(ValueLayout.JAVA_LONG, 0x18, VmClock.FLAG_TIME_MAXERROR_VALID | VmClock.FLAG_PERIOD_MAXERROR_VALID
                        | VmClock.FLAG_VM_GEN_COUNTER_PRESENT);
                s.set(ValueLayout.JAVA_BYTE, 0x22, (byte) 2); // SYNCHRONIZED
                s.set(ValueLayout.JAVA_LONG, 0x28, 0);
                s.set(ValueLayout.JAVA_LONG, 0x30, period);
                s.set(ValueLayout.JAVA_LONG, 0x40, period / 100_000);
                s.set(ValueLayout.JAVA_LONG, 0x48, 1_700_000_000L);
                s.set(ValueLayout.JAVA_LONG, 0x60, 2_000);
            }
            clock = VmClock.open(file);
            marker = clock.disruptionMarker();
            generation = clock.vmGenerationCounter();
        }

        @TearDown(Level.Trial)
        public void remove() throws IOException {
            clock.close();
            Files.deleteIfExists(file);
        }
    }

    private final TimeBounds bounds = new TimeBounds();

    /** The yardstick: TAI from the library's fastest path. */
    @Benchmark
    public long clocksNanosTai() {
        return Clocks.nanos(ClockId.TAI);
    }

    /** The page's TAI and bound: seqlock, ordered counter read, the 128-bit formula and the bound. */
    @Benchmark
    public long vmclockNowTai(Page p) {
        return p.clock.now(bounds, ClockId.TAI).latestNanos();
    }

    /** The cheap check: one seqlocked read of marker, flags and generation. */
    @Benchmark
    public boolean vmclockDisruptedSince(Page p) {
        return p.clock.disruptedSince(p.marker, p.generation);
    }
}
