package org.timekeeping4j.benchmarks;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.FastPtpClock;
import org.timekeeping4j.device.PtpClock;
import org.timekeeping4j.device.TimeBounds;
import org.timekeeping4j.linux.DeviceSyscalls;

/**
 * A PTP hardware clock at counter speed ({@link FastPtpClock}: one MONOTONIC_RAW read through the timekeeper) against
 * Clocks.nanos(TAI) and the PHC's own system call ({@link PtpClock#nanos()}) in the same run. The counter-speed read
 * never touches the device: its cost does not depend on the PHC. Without {@code -p device=/dev/ptpN} the device is a
 * stand-in answering PTP_CLOCK_GETCAPS and PTP_SYS_OFFSET_PRECISE from the real MONOTONIC_RAW (a PHC 37 us ahead,
 * 25 ppm fast) for the discipline thread's cross timestamps; it has no system call to measure, so {@code ptpNanos}
 * fails there, saying so. With a real PHC (the QEMU lab's guest: {@code TK4J_VMCLOCK_JMH} in
 * scripts/lab/qemu-vmclock.sh) every benchmark runs against it.
 *
 * <h2>Run recipe</h2>
 * <pre>
 * mvn -B -q -DskipTests package
 * $JDK/bin/java -jar benchmarks/target/benchmarks.jar FastPtpClockBenchmark -prof gc [-p device=/dev/ptp0]
 * </pre>
 * Every read here must show 0 B/op under {@code -prof gc}.
 */
public class FastPtpClockBenchmark extends PerCallBenchmark {

    /** The PHC read at counter speed, disciplined by its thread for the whole trial. */
    @State(Scope.Benchmark)
    public static class Phc {
        /** A PTP clock's device, or {@value #STAND_IN}. */
        @Param({STAND_IN})
        public String device;
        PtpClock phc;
        FastPtpClock fast;

        @Setup(Level.Trial)
        public void open() throws DeviceException {
            boolean standIn = device.equals(STAND_IN);
            if (standIn) {
                DeviceSyscalls.use(new StandIn());
            }
            phc = PtpClock.open(Path.of(standIn ? StandIn.PATH : device));
            fast = phc.fast();
        }

        @TearDown(Level.Trial)
        public void close() {
            fast.close();
            phc.close();
            DeviceSyscalls.use(DeviceSyscalls.linux());
        }
    }

    /** The value of {@code device} that selects the stand-in (the default). */
    public static final String STAND_IN = "stand-in";

    private final TimeBounds bounds = new TimeBounds();

    /** The yardstick of the issue: TAI from the library's fastest path. */
    @Benchmark
    public long clocksNanosTai() {
        return Clocks.nanos(ClockId.TAI);
    }

    /** The PHC's time: one MONOTONIC_RAW read, the timekeeper's seqlock and mult/shift. */
    @Benchmark
    public long fastPtpNanos(Phc p) {
        return p.fast.nanos();
    }

    /** The PHC's time and its uncertainty from the same read, into a holder. */
    @Benchmark
    public long fastPtpNow(Phc p) {
        return p.fast.now(bounds).latestNanos();
    }

    /**
     * The PHC's time by its system call: clock_gettime on its dynamic clock id, the driver's read inside. On the
     * stand-in it fails at once (EINVAL, from the stand-in's clock_gettime): give {@code -p device=/dev/ptpN}.
     */
    @Benchmark
    public long ptpNanos(Phc p) {
        return p.phc.nanos();
    }

    /** A PHC for the discipline's cross timestamps: PRECISE, from the real MONOTONIC_RAW. */
    static final class StandIn implements DeviceSyscalls {
        static final String PATH = "/bench/ptp0";
        private static final long GETCAPS = 0x80503D01L;
        private static final long PRECISE = 0xC0403D08L;

        @Override
        public int open(String path, int flags) {
            return path.equals(PATH) ? 60 : -2; // ENOENT
        }

        @Override
        public int close(int fd) {
            return 0;
        }

        @Override
        public int clockGettime(int clockId, MemorySegment ts) {
            return -22; // EINVAL: the cross timestamps are PRECISE
        }

        @Override
        public int ioctl(int fd, long request, MemorySegment a) {
            if (request == GETCAPS) {
                a.set(JAVA_INT, 0, 500_000); // max_adj
                a.set(JAVA_INT, 24, 1);      // cross_timestamping
                return 0;
            }
            if (request == PRECISE) {
                long raw = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
                time(a, 0, raw + 37_000 + raw / 40_000);                 // device: 25 ppm fast
                time(a, 16, KernelClocks.nanos(ClockId.REALTIME));      // sys_realtime
                time(a, 32, raw);                                       // sys_monoraw
                return 0;
            }
            return -95; // EOPNOTSUPP
        }

        private static void time(MemorySegment a, long off, long nanos) {
            a.set(JAVA_LONG, off, Math.floorDiv(nanos, 1_000_000_000L));
            a.set(JAVA_INT, off + 8, (int) Math.floorMod(nanos, 1_000_000_000L));
            a.set(JAVA_INT, off + 12, 0);
        }
    }
}
