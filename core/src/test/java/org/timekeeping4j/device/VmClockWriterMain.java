package org.timekeeping4j.device;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.file.Path;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * A stand-in hypervisor, run as a child JVM by {@link VmClockWriterProcessTest}: publishes into a file-backed
 * VMClock page, once a second, this machine's counter and CLOCK_TAI with an honest maximum error, as a hypervisor
 * that fills the time fields would.
 *
 * <p>Each update reads counter, CLOCK_TAI, counter; states the time at the midpoint of the two counter reads, with
 * half their distance (in ns) plus {@link #MARGIN_NANOS} as time_maxerror_nanosec; the period is the counter's
 * rate measured against CLOCK_TAI since the first pairing; the period's maximum error rate is {@link #RATE_PPM}
 * of the period; the shift is floor(log2(rate in Hz)), which keeps the period in [2^63, 2^64).
 * Arguments: the page file, how many seconds to run, and for the real page (file /dev/mem, in the QEMU lab) its
 * physical address: then the page QEMU wrote is updated in place, its disruption marker kept (QEMU bumps it at
 * loadvm), TAI_OFFSET_VALID with offset 0 (the lab guest's TAI is its UTC) so that the driver registers its PTP
 * clock. Prints "published N" per update. For the real page, the flags also carry whatever number the file
 * {@link #FLAGS_FILE} holds (the lab's guest main writes DISRUPTION_SOON / DISRUPTION_IMMINENT there), read at each
 * update.
 */
public final class VmClockWriterMain {

    /** Slack on top of the pairing's bracket: the writer's own CLOCK_TAI is not known better than this. */
    static final long MARGIN_NANOS = 20_000;
    /** The period's published maximum error rate, ppm: far above a counter's real wander over seconds. */
    static final long RATE_PPM = 100;
    /** Extra flags for the real page's next update, a decimal number (absent: none). */
    static final Path FLAGS_FILE = Path.of("/tmp/vmclock-flags");

    /** {@return the flags {@link #FLAGS_FILE} asks for, 0 where it is absent or unreadable} */
    static long extraFlags() {
        try {
            return Long.decode(java.nio.file.Files.readString(FLAGS_FILE).trim());
        } catch (java.io.IOException | NumberFormatException e) {
            return 0;
        }
    }

    private VmClockWriterMain() {}

    /** The reader's own ordered counter read (rdtscp, or lfence;rdtsc where lfence_rdtsc says it is ordered). */
    static long counter() {
        return VmClockCounter.now();
    }

    /** {counter at the midpoint, CLOCK_TAI ns, half the bracket in counter ticks}. */
    static long[] pair() {
        long best0 = 0;
        long bestTai = 0;
        long bestWidth = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) { // the narrowest of 20 brackets
            long c0 = counter();
            long tai = ClockGettimeStub.clockGettimeNanos(ClockId.TAI.id());
            long c1 = counter();
            if (c1 - c0 < bestWidth) {
                bestWidth = c1 - c0;
                best0 = c0 + (c1 - c0) / 2;
                bestTai = tai;
            }
        }
        return new long[] {best0, bestTai, (bestWidth + 1) / 2};
    }

    /** The real page at {@code physical} through /dev/mem (root, iomem=relaxed), mapped read-write and shared. */
    static VmClockPageWriter devMem(long physical) {
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.global();
        int fd = org.timekeeping4j.linux.DeviceIo.open("/dev/mem", org.timekeeping4j.linux.DeviceIo.O_RDWR
                | 0x101000 /* O_SYNC */);
        if (fd < 0) {
            throw new IllegalStateException("/dev/mem: open failed: " + org.timekeeping4j.linux.Errno.describe(-fd));
        }
        try {
            java.lang.foreign.MemorySegment state = arena.allocate(org.timekeeping4j.linux.LibC.CAPTURE_STATE);
            long at = org.timekeeping4j.linux.LibC.call(org.timekeeping4j.linux.LibC.SelfCalls.MMAP, state, 0, 4096,
                    org.timekeeping4j.linux.LibC.PROT_READ | org.timekeeping4j.linux.LibC.PROT_WRITE,
                    org.timekeeping4j.linux.DeviceIo.MAP_SHARED, fd, physical);
            if (at == -1L) {
                throw new IllegalStateException("/dev/mem: mmap at 0x" + Long.toHexString(physical) + " failed: "
                        + org.timekeeping4j.linux.Errno.describe(org.timekeeping4j.linux.LibC.errno(state)));
            }
            return new VmClockPageWriter(java.lang.foreign.MemorySegment.ofAddress(at).reinterpret(4096));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int seconds = Integer.parseInt(args[1]);
        boolean real = args.length > 2;
        long[] first = pair();
        Thread.sleep(200); // time must pass: the first update's counter rate is measured from here
        try (VmClockPageWriter w = real ? devMem(Long.decode(args[2])) : VmClockPageWriter.valid(file)) {
            if (real) {
                VmClockPageWriter r = w;
                System.out.println("found magic 0x" + Integer.toHexString(r.seg.get(java.lang.foreign.ValueLayout
                        .JAVA_INT, 0)) + " counter_id " + Byte.toUnsignedInt(r.seg.get(java.lang.foreign.ValueLayout
                        .JAVA_BYTE, 0x0a)) + " clock_status " + Byte.toUnsignedInt(r.seg.get(java.lang.foreign
                        .ValueLayout.JAVA_BYTE, 0x22)) + " marker " + r.marker() + " seq " + r.seq());
            }
            for (int n = 1; n <= seconds; n++) {
                long[] now = pair();
                // Ticks per second over everything seen so far (BigDecimal: no double rounding to worry about).
                BigDecimal hz = BigDecimal.valueOf(now[0] - first[0]).multiply(BigDecimal.valueOf(1_000_000_000L))
                        .divide(BigDecimal.valueOf(now[1] - first[1]), MathContext.DECIMAL128);
                // period = 2^(64 + shift) / hz, in units of 2^-(64 + shift) s: just below 2^64.
                int shift = hz.toBigInteger().bitLength() - 1;
                long period = new BigDecimal(java.math.BigInteger.ONE.shiftLeft(64 + shift))
                        .divide(hz, 0, RoundingMode.HALF_EVEN).toBigIntegerExact().longValue();
                long halfNanos = BigDecimal.valueOf(now[2]).multiply(BigDecimal.valueOf(1_000_000_000L))
                        .divide(hz, 0, RoundingMode.CEILING).longValueExact();
                long sec = Math.floorDiv(now[1], 1_000_000_000L);
                long nsec = Math.floorMod(now[1], 1_000_000_000L);
                long frac = java.math.BigInteger.valueOf(nsec).shiftLeft(64)
                        .divide(java.math.BigInteger.valueOf(1_000_000_000L)).longValue();
                w.begin();
                w.kind(VmClock.COUNTER_HERE, 1 /* TAI */, 2 /* SYNCHRONIZED */, VmClock.FLAG_TIME_MAXERROR_VALID
                        | VmClock.FLAG_PERIOD_MAXERROR_VALID | (real ? VmClock.FLAG_TAI_OFFSET_VALID | extraFlags() : 0),
                        real ? w.marker() : 1);
                w.taiOffset(0);
                w.period(shift, now[0], period, 0, Long.divideUnsigned(period, 1_000_000) * RATE_PPM);
                w.time(sec, frac, 0, halfNanos + MARGIN_NANOS);
                w.end();
                System.out.println("published " + n + " hz " + hz.toBigInteger() + " half " + halfNanos + " ns");
                System.out.flush();
                Thread.sleep(1000); // pacing: one update a second, as a hypervisor's writer
            }
        }
    }
}
