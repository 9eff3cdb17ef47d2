package org.timekeeping4j.device;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.EventRecorder;

/**
 * The guest side of the QEMU lab's VMClock run (scripts/lab/qemu-vmclock.sh): against the real driver's
 * /dev/vmclock0, before and across a host's savevm + loadvm. Prints "TK4J-LAB ..." lines the host script reads:
 * the page as mapped, the refusal of time (QEMU publishes none), poll's POLLHUP refusal, then READY; then waits up
 * to the given seconds for the disruption marker to move and reports what {@link VmClock#disruptedSince} and a
 * ClockBound segment written with the pre-disruption marker ({@link ClockBound#now}) say. Exit 0 when both saw it.
 */
public final class VmClockLabMain {

    private VmClockLabMain() {}

    private static void say(String line) {
        System.out.println("TK4J-LAB " + line);
        System.out.flush();
    }

    /**
     * Where the driver registered its PTP clock (a page with moving time written before modprobe): each PHC read,
     * the driver's formula at a counter read in the kernel, must lie within the bounds of the VmClock reads on
     * either side of it, and in fact between their times.
     */
    private static void comparePhc(VmClock clock, Path ptp) throws DeviceException {
        if (!Files.exists(ptp)) {
            say("PHC none at " + ptp);
            return;
        }
        try (PtpClock phc = PtpClock.open(ptp)) {
            TimeBounds before = new TimeBounds();
            TimeBounds after = new TimeBounds();
            int n = 2000;
            int outside = 0;
            int between = 0;
            long widest = 0;
            String first = null;
            for (int i = 0; i < n; i++) {
                clock.now(before, ClockId.TAI);
                long p = phc.nanos();
                clock.now(after, ClockId.TAI);
                if (p < before.earliestNanos() || p > after.latestNanos()) {
                    outside++;
                    if (first == null) {
                        first = "PHC " + p + " against " + before + " .. " + after;
                    }
                }
                if (p >= before.nanos() && p <= after.nanos()) {
                    between++;
                }
                widest = Math.max(widest, after.latestNanos() - after.nanos());
            }
            say("PHC " + n + " reads of " + ptp + " between two VmClock reads: " + outside
                    + " outside the published bound, " + between + " between the two reads' own times; bound up to "
                    + widest + " ns" + (first != null ? "; first outside: " + first : ""));
        }
    }

    public static void main(String[] args) throws Exception {
        Path device = Path.of(args.length > 0 ? args[0] : "/dev/vmclock0");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 120;
        try (VmClock clock = VmClock.open(device)) {
            VmClockPage p = clock.page();
            say("PAGE " + p);
            try {
                TimeBounds t = clock.now(new TimeBounds(), ClockId.TAI);
                say("TIME served: " + t);
            } catch (IllegalStateException e) {
                say("TIME refused: " + e.getMessage());
            }
            comparePhc(clock, Path.of("/dev/ptp0"));
            try {
                clock.awaitChange(Duration.ofMillis(100));
                say("POLL returned (unexpected without NOTIFICATION_PRESENT)");
            } catch (DeviceException e) {
                say("POLL refused: " + e.getMessage());
            }
            long marker = clock.disruptionMarker();
            long generation = clock.vmGenerationCounter();
            // A ClockBound daemon's segment as it would stand before the disruption: support on, this marker.
            Path shm = Files.createTempFile("shm0", ".clockbound");
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            try (ShmWriter w = ShmWriter.valid(shm); ClockBound bound = ClockBound.open(shm, device)) {
                w.disruptionSupport = 1;
                w.write(mono, mono + 3600_000_000_000L, 5_000, marker, 15_000, 1);
                TimeBounds b = bound.now(new TimeBounds());
                say("CLOCKBOUND before: " + b.status() + " width " + b.widthNanos() + " ns");
                EventRecorder events = new EventRecorder(4);
                events.record(1); // before the disruption: its export must not claim exactness
                say("READY marker " + Long.toUnsignedString(marker) + " generation " + generation);
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() - end < 0) {
                    if (clock.disruptedSince(marker, generation)) {
                        String seen = Instant.ofEpochSecond(0, KernelClocks.nanos(ClockId.REALTIME)).toString();
                        say("DISRUPTED marker " + Long.toUnsignedString(marker) + " -> "
                                + Long.toUnsignedString(clock.disruptionMarker()) + " seen at " + seen
                                + "; page " + clock.page());
                        bound.now(b);
                        say("CLOCKBOUND after: " + b.status() + " earliest " + b.earliestNanos() + " latest "
                                + b.latestNanos());
                        boolean[] extrapolated = {false};
                        events.export(ClockId.REALTIME, (nanos, payload, e) -> extrapolated[0] = e);
                        say("EVENT recorded before the disruption exported extrapolated=" + extrapolated[0]);
                        System.exit(b.status() == TimeBounds.Status.DISRUPTED && extrapolated[0] ? 0 : 1);
                    }
                    // Polls, as a reader without notifications must (a guest's main: no Awaitility on its class path).
                    Thread.sleep(20);
                }
                say("NO DISRUPTION within " + seconds + " s");
                System.exit(1);
            }
        }
    }
}
