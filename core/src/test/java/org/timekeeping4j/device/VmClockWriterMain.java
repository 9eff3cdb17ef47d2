package org.timekeeping4j.device;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.file.Path;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.CounterArch;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.Stubs;

/**
 * A stand-in hypervisor, run as a child JVM by {@link VmClockWriterProcessTest}: publishes into a file-backed
 * VMClock page, once a second, this machine's counter and CLOCK_TAI with an honest maximum error, as a hypervisor
 * that fills the time fields would.
 *
 * <p>Each update reads counter, CLOCK_TAI, counter; states the time at the midpoint of the two counter reads, with
 * half their distance (in ns) plus {@link #MARGIN_NANOS} as time_maxerror_nanosec; the period is the counter's
 * rate measured against CLOCK_TAI since the first pairing; the period's maximum error rate is {@link #RATE_PPM}
 * of the period; the shift is floor(log2(rate in Hz)), which keeps the period in [2^63, 2^64).
 * Arguments: the page file, how many seconds to run. Prints "published N" per update.
 */
public final class VmClockWriterMain {

    /** Slack on top of the pairing's bracket: the writer's own CLOCK_TAI is not known better than this. */
    static final long MARGIN_NANOS = 20_000;
    /** The period's published maximum error rate, ppm: far above a counter's real wander over seconds. */
    static final long RATE_PPM = 100;

    private VmClockWriterMain() {}

    static long counter() {
        try {
            return CounterArch.HERE == CounterArch.AARCH64 ? (long) Stubs.IsbCntvct.HANDLE.invokeExact()
                    : (long) Stubs.LfenceRdtsc.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {counter at the midpoint, CLOCK_TAI ns, half the bracket in counter ticks}. */
    static long[] pair() {
        long best0 = 0;
        long bestTai = 0;
        long bestWidth = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) { // the narrowest of 20 brackets
            long c0 = counter();
            long tai = LinuxTime.clockGettimeNanos(ClockId.TAI.id());
            long c1 = counter();
            if (c1 - c0 < bestWidth) {
                bestWidth = c1 - c0;
                best0 = c0 + (c1 - c0) / 2;
                bestTai = tai;
            }
        }
        return new long[] {best0, bestTai, (bestWidth + 1) / 2};
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int seconds = Integer.parseInt(args[1]);
        long[] first = pair();
        Thread.sleep(200);
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
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
                w.kind(VmClock.COUNTER_HERE, 1 /* TAI */, 2 /* SYNCHRONIZED */,
                        VmClock.FLAG_TIME_MAXERROR_VALID | VmClock.FLAG_PERIOD_MAXERROR_VALID, 1);
                w.period(shift, now[0], period, 0, Long.divideUnsigned(period, 1_000_000) * RATE_PPM);
                w.time(sec, frac, 0, halfNanos + MARGIN_NANOS);
                w.end();
                System.out.println("published " + n + " hz " + hz.toBigInteger() + " half " + halfNanos + " ns");
                System.out.flush();
                Thread.sleep(1000);
            }
        }
    }
}
