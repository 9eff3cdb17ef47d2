package org.timekeeping4j.vdso;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * A child JVM for {@link VclockHostTest}: bracketed reads of {@code Clocks.nanos} between clock_gettime reads,
 * per clock, and one line per clock on stdout ({@code CLOCK <name> reads <n> outside <m> worst <ns>}), after a
 * line {@code STATE enabled=<bool> timens=<mono>,<boot> vclock=<text>}.
 *
 * <p>Arguments: {@code count N} (N reads per clock, clock by clock) or {@code seconds S} (round-robin over the
 * clocks for S seconds: what a clocksource switched meanwhile meets).
 */
public final class AgreementMain {

    static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME,
        ClockId.TAI, ClockId.MONOTONIC_COARSE, ClockId.REALTIME_COARSE};

    private AgreementMain() {}

    public static void main(String[] args) {
        var k = Clocks.diagnostics().vdsoData();
        Discovery.Timens ns = KernelVdso.timens();
        System.out.println("STATE enabled=" + k.serves() + " timens=" + ns.monotonic() + "," + ns.boottime()
                + " vclock=" + k.vclock() + (k.serves() ? "" : " reason=" + k.why()));
        String ready = System.getProperty("tk4j.test.ready"); // a file the parent waits for: discovery is done
        if (ready != null) {
            try {
                java.nio.file.Files.writeString(java.nio.file.Path.of(ready), "ready");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        long[] reads = new long[CLOCKS.length];
        long[] outside = new long[CLOCKS.length];
        long[] worst = new long[CLOCKS.length];
        if (args[0].equals("count")) {
            long n = Long.parseLong(args[1]);
            for (int c = 0; c < CLOCKS.length; c++) {
                for (long i = 0; i < n; i++) {
                    read(c, reads, outside, worst);
                }
            }
        } else {
            long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
            while (System.nanoTime() - end < 0) {
                for (int i = 0; i < 1000; i++) {
                    for (int c = 0; c < CLOCKS.length; c++) {
                        read(c, reads, outside, worst);
                    }
                }
            }
        }
        for (int c = 0; c < CLOCKS.length; c++) {
            System.out.println("CLOCK " + CLOCKS[c] + " reads " + reads[c] + " outside " + outside[c] + " worst "
                    + worst[c]);
        }
        System.out.println("AFTER vclock=" + Clocks.diagnostics().vdsoData().vclock() + " entrySwitches=" + KernelVdso.entrySwitches());
    }

    private static void read(int c, long[] reads, long[] outside, long[] worst) {
        int id = CLOCKS[c].id();
        long k0 = ClockGettimeStub.clockGettimeNanos(id);
        long v = Clocks.nanos(CLOCKS[c]);
        long k1 = ClockGettimeStub.clockGettimeNanos(id);
        reads[c]++;
        if (v - k0 < 0 || k1 - v < 0) {
            outside[c]++;
            worst[c] = Math.max(worst[c], Math.max(k0 - v, v - k1));
        }
    }
}
