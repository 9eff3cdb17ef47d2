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
}
