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
 *
 * <p>The served bounds too: {@link BoundedClock#system()} over the kernel's NTP state (set here as a daemon would:
 * synchronised, maxerror 100 ms), which watches /dev/vmclock0, and a {@link ServedBounds} over a source that
 * measures at each sample, watching the page, refreshed by hand only. Before READY, DISRUPTION_SOON then
 * DISRUPTION_IMMINENT are set in the page (through {@link VmClockWriterMain#FLAGS_FILE}) and must reach
 * {@link BoundedClock#awaitDisruption} and each read's {@link TimeBounds#disruptionExpected()}; after the
 * restore, the first reads of both must be DISRUPTED and unbounded, and the hand-refreshed one serves again
 * once its source has measured since.
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

    /** A source that measures at each sample: a 50 us bound, growing 50 ppm. */
    private static final class Measuring implements BoundSource {
        @Override
        public ServedBounds.Anchor sample() {
            long raw = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
            long real = KernelClocks.nanos(ClockId.REALTIME);
            return new ServedBounds.Anchor(raw, real - raw, 50_000, 50_000, TimeBounds.Status.SYNCHRONIZED,
                    3600_000_000_000L, 3600_000_000_000L, "measuring at each sample");
        }

        @Override
        public int periodMillis() {
            return 1000;
        }

        @Override
        public String description() {
            return "lab source";
        }
    }

    /** The kernel's NTP state as a daemon leaves it: synchronised (STA_UNSYNC clear), maxerror 100 ms. */
    private static void synchroniseKernel() {
        System.setProperty(org.timekeeping4j.testing.HostSteering.PROPERTY, "true"); // a lab guest: its own kernel
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment tx = arena.allocate(org.timekeeping4j.linux.LibC.Timex.SIZE, 8);
            tx.set(java.lang.foreign.ValueLayout.JAVA_INT, org.timekeeping4j.linux.LibC.Timex.MODES,
                    org.timekeeping4j.testing.KernelClock.ADJ_STATUS | org.timekeeping4j.testing.KernelClock.ADJ_MAXERROR
                            | org.timekeeping4j.testing.KernelClock.ADJ_ESTERROR);
            tx.set(java.lang.foreign.ValueLayout.JAVA_LONG, org.timekeeping4j.linux.LibC.Timex.MAXERROR, 100_000);
            tx.set(java.lang.foreign.ValueLayout.JAVA_LONG, org.timekeeping4j.linux.LibC.Timex.ESTERROR, 1_000);
            org.timekeeping4j.testing.KernelClock.adjtime(org.timekeeping4j.testing.KernelClock.CLOCK_REALTIME, tx);
        }
    }

    /** Asks the writer for these flags; waits for them to reach the served clocks; says what each saw. */
    private static boolean flags(long flags, TimeBounds.Disruption expected, TimeBounds.Disruption before,
                                 BoundedClock system, ServedBounds served) throws Exception {
        Files.writeString(VmClockWriterMain.FLAGS_FILE, Long.toString(flags));
        long t0 = System.nanoTime();
        TimeBounds.Disruption waited = served.awaitDisruption(before, Duration.ofSeconds(20));
        long ms = (System.nanoTime() - t0) / 1_000_000L;
        TimeBounds.Disruption systemWaited = system.awaitDisruption(before, Duration.ofSeconds(5));
        TimeBounds.Disruption read = served.now(new TimeBounds()).disruptionExpected();
        TimeBounds sb = system.now(new TimeBounds());
        boolean ok = waited == expected && systemWaited == expected && read == expected
                && sb.disruptionExpected() == expected;
        say("FLAGS " + expected + " (0x" + Long.toHexString(flags) + " asked): awaitDisruption " + waited + " after "
                + ms + " ms, system's " + systemWaited + "; reads: served " + read + ", system "
                + sb.disruptionExpected() + " (" + sb.status() + ")" + (ok ? " ok" : " WRONG"));
        return ok;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("timekeeping4j.bounds", "adjtimex"); // before anything reads the configuration
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
                synchroniseKernel();
                BoundedClock system = BoundedClock.system();
                TimeBounds sb = system.now(new TimeBounds());
                say("SYSTEM before: " + sb.status() + " width " + sb.widthNanos() + " ns; "
                        + ((ServedBounds) system).report());
                StringBuilder note = new StringBuilder();
                ServedBounds served = new ServedBounds(new Measuring(), "lab", VmClockWatch.open(device, note),
                        note.toString());
                served.refresh(false);
                TimeBounds lb = served.now(new TimeBounds());
                say("SERVED before: " + lb.status() + " width " + lb.widthNanos() + " ns; " + served.report());
                boolean flagsOk = flags(VmClock.FLAG_DISRUPTION_SOON, TimeBounds.Disruption.SOON,
                        TimeBounds.Disruption.NONE, system, served)
                        & flags(VmClock.FLAG_DISRUPTION_SOON | VmClock.FLAG_DISRUPTION_IMMINENT,
                        TimeBounds.Disruption.IMMINENT, TimeBounds.Disruption.SOON, system, served)
                        & flags(0, TimeBounds.Disruption.NONE, TimeBounds.Disruption.IMMINENT, system, served);
                served.refresh(false); // the page rewritten three times since: no disruption
                served.now(lb);
                say("SERVED ready: " + lb.status() + " width " + lb.widthNanos() + " ns");
                EventRecorder events = new EventRecorder(4);
                events.record(1); // before the disruption: its export must not claim exactness
                say("READY marker " + Long.toUnsignedString(marker) + " generation " + generation);
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() - end < 0) {
                    if (clock.disruptedSince(marker, generation)) {
                        // The first reads after it: the hand-refreshed clock has not been refreshed since READY.
                        system.now(sb);
                        served.now(lb);
                        say("SYSTEM after: " + sb.status() + " earliest " + sb.earliestNanos() + " latest "
                                + sb.latestNanos() + "; " + ((ServedBounds) system).report());
                        say("SERVED after: first read " + lb.status() + " earliest " + lb.earliestNanos() + " latest "
                                + lb.latestNanos());
                        boolean servedOk = sb.status() == TimeBounds.Status.DISRUPTED
                                && sb.widthNanos() == Long.MAX_VALUE && lb.status() == TimeBounds.Status.DISRUPTED
                                && lb.widthNanos() == Long.MAX_VALUE;
                        served.refresh(false); // sees the page moved; its source measures after that
                        served.now(lb);
                        say("SERVED refreshed: " + lb.status() + " width " + lb.widthNanos() + " ns; "
                                + served.report());
                        servedOk &= lb.status() == TimeBounds.Status.SYNCHRONIZED;
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
                        say("SERVED checks " + (servedOk ? "ok" : "FAILED") + ", flags " + (flagsOk ? "ok" : "FAILED"));
                        System.exit(b.status() == TimeBounds.Status.DISRUPTED && extrapolated[0] && servedOk && flagsOk
                                ? 0 : 1);
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
