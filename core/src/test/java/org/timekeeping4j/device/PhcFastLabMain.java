package org.timekeeping4j.device;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * The guest side of the QEMU lab's PHC-at-counter-speed run (scripts/lab/qemu-vmclock.sh): {@link FastPtpClock}
 * over ptp_vmclock's PHC, the real driver, whose time the lab's page writer moves once a second. Each read is
 * bracketed by clock_gettime on the PHC (the kernel's own read of it); the PHC's time at the read must lie in
 * [earliest, latest]. Twice: with the method the driver offers (PRECISE), then with PRECISE refused (EXTENDED).
 * Prints a line per run the host script checks: "reads N, M outside; width p50 / p99; the estimate". Exit 0 when
 * none was outside.
 */
public final class PhcFastLabMain {

    private PhcFastLabMain() {}

    /**
     * Runs the check.
     *
     * @param args the PHC's path, and how many reads
     * @throws Exception when the PHC cannot be opened
     */
    public static void main(String[] args) throws Exception {
        int reads = Integer.parseInt(args[1]);
        boolean ok = true;
        // As the driver offers it (PRECISE on ptp_vmclock), then with PRECISE refused: EXTENDED through the driver.
        for (PtpClock.Method refused : new PtpClock.Method[] {null, PtpClock.Method.PRECISE}) {
            try (PtpClock phc = PtpClock.open(Path.of(args[0])); PtpClock own = PtpClock.open(Path.of(args[0]))) {
                if (refused != null) {
                    own.refuse(refused);
                }
                try (FastPtpClock fast = FastPtpClock.start(own)) {
                    ok &= check(phc, fast, reads);
                    if (refused == null) {
                        cost(phc, fast);
                    }
                }
            }
        }
        System.exit(ok ? 0 : 1);
    }

    private static boolean check(PtpClock phc, FastPtpClock fast, int reads) {
        TimeBounds b = new TimeBounds();
        long[] widths = new long[reads];
        long outside = 0;
        for (int i = 0; i < reads; i++) {
            long before = phc.nanos();
            fast.now(b);
            long after = phc.nanos();
            boolean holds = b.status() == TimeBounds.Status.SYNCHRONIZED && b.latestNanos() >= before
                    && b.earliestNanos() <= after;
            outside += holds ? 0 : 1;
            widths[i] = b.widthNanos();
        }
        Arrays.sort(widths);
        System.out.printf("reads %d, %d outside; width p50 %d ns, p99 %d ns; %s%n", reads, outside,
                widths[reads / 2], widths[reads * 99 / 100], fast.describe());
        return outside == 0;
    }

    /**
     * What a read costs here, each against the others in the same run: FastPtpClock.nanos(), Clocks.nanos(TAI) and
     * PtpClock.nanos() (clock_gettime on the PHC), 20,000 calls each in 5 alternating rounds, the median round's ns
     * per call. Not JMH, and under the guest's emulation: a ratio within one run, nothing more.
     */
    private static void cost(PtpClock phc, FastPtpClock fast) {
        String[] names = {"FastPtpClock.nanos", "Clocks.nanos(TAI)", "PtpClock.nanos"};
        double[][] perCall = new double[names.length][5];
        long sink = 0;
        for (int round = 0; round < 5; round++) {
            for (int k = 0; k < names.length; k++) {
                int which = (k + round) % names.length;
                long t0 = System.nanoTime();
                for (int i = 0; i < 20_000; i++) {
                    sink += which == 0 ? fast.nanos() : which == 1
                            ? org.timekeeping4j.Clocks.nanos(org.timekeeping4j.ClockId.TAI) : phc.nanos();
                }
                perCall[which][round] = (System.nanoTime() - t0) / 20_000.0;
            }
        }
        double[] median = new double[names.length];
        for (int k = 0; k < names.length; k++) {
            Arrays.sort(perCall[k]);
            median[k] = perCall[k][2];
        }
        System.out.printf("cost per call (median of 5 rounds, emulated): %s %.1f ns, %s %.1f ns, %s %.1f ns; fast/TAI "
                        + "%.2fx, fast/PHC syscall %.3fx (%d)%n", names[0], median[0], names[1], median[1], names[2],
                median[2], median[0] / median[1], median[0] / median[2], sink & 1);
    }
}
