// BoundsLab: the proof of BoundedClock.system() against a reference whose true time is known; the helper of
// scripts/chrony-bounds.sh. Not part of the product; run from source with a JDK 25 (ClockLab.java, beside it, is
// compiled with it), the CLI jar on the class path for `read`:
//   java --enable-native-access=ALL-UNNAMED [-cp cli/target/tk4j.jar] scripts/chrony/BoundsLab.java COMMAND ...
// Commands:
//   reference STATE UNIT SEED SECONDS OFFSET_US STEP_AT_S STEP_MS LOST_FROM_S LOST_TO_S KNOTS
//       The model (root): true time at MONOTONIC_RAW r is line(r) + phase(r), line the undisciplined clock saved
//       in STATE (ClockLab save), phase piecewise linear between knots 100 ms apart: a frequency that walks every
//       10 s by up to +-1.5 ppm within +-8 ppm, plus a phase random walk (5 ns a knot). Writes the knots to KNOTS
//       first (the judge's truth), then sets REALTIME OFFSET_US ahead (ADJ_SETOFFSET: an offset for chronyd to slew
//       out), prints "ready", and feeds chrony's SHM refclock UNIT every 100 ms with true time plus 100 ns of
//       measurement noise, except from LOST_FROM_S to LOST_TO_S (the reference lost). At STEP_AT_S it sets
//       REALTIME STEP_MS ahead (a step, which chronyd steps back). Once a second it prints where REALTIME is
//       against true time.
//   read SECONDS RATE OUT
//       Reads BoundedClock.system() (the source -Dtimekeeping4j.bounds names) RATE times a second for SECONDS,
//       each read bracketed by MONOTONIC_RAW reads, into OUT (binary); prints each change of the source's words.
//   judge KNOTS DRIFT_PPM OUT...
//       For each read: true time at both ends of its bracket (the model); a read whose interval certainly misses
//       true time (true time at the bracket's end before earliest, or at its start after latest) is a violation.
//       Prints, per window of the scenario, the reads by status and the half-widths (median, p99); how often a
//       new sample's bound was larger than the served one grown at DRIFT_PPM; exits 1 on any violation or on a
//       read file with fewer than 10^6 reads. With -Dlab.stoppedAt=S (chronyd stopped S seconds into the
//       scenario) a last window, and exit 1 unless the status ends UNKNOWN there.
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

public final class BoundsLab {
    static final long S = 1_000_000_000L, KNOT_NS = 100_000_000L;
    static final int ADJ_SETOFFSET = 0x0100;
    static final long TX_TIME_SEC = 72, TX_TIME_USEC = 80;

    public static void main(String[] args) throws Throwable {
        switch (args.length == 0 ? "" : args[0]) {
            case "reference" -> reference(args);
            case "read" -> read(Double.parseDouble(args[1]), Integer.parseInt(args[2]), Path.of(args[3]));
            case "judge" -> System.exit(judge(Path.of(args[1]), Double.parseDouble(args[2]),
                    Arrays.stream(args, 3, args.length).map(Path::of).toList()));
            default -> {
                System.err.println("usage: BoundsLab reference ... | read SECONDS RATE OUT | judge KNOTS DRIFT_PPM OUT...");
                System.exit(2);
            }
        }
    }

    // ---- the model ------------------------------------------------------------------------------------------------

    /** True time: the undisciplined line plus the knots' phase, linear between knots. */
    record Truth(ClockLab.Line line, long raw0, double[] phase, double stepAt, double lostFrom, double lostTo) {
        long at(long raw) {
            double k = (double) (raw - raw0) / KNOT_NS;
            int i = (int) Math.max(0, Math.min(phase.length - 2, Math.floor(k)));
            double f = Math.max(0, Math.min(1, k - i));
            return line.at(raw) + Math.round(phase[i] + (phase[i + 1] - phase[i]) * f);
        }

        double seconds(long raw) {
            return (double) (raw - raw0) / S;
        }

        static Truth load(Path knots) throws IOException {
            Properties p = new Properties();
            try (var r = Files.newBufferedReader(knots)) {
                p.load(r);
            }
            String[] ph = p.getProperty("phase").split(",");
            double[] phase = new double[ph.length];
            for (int i = 0; i < ph.length; i++) phase[i] = Double.parseDouble(ph[i]);
            return new Truth(new ClockLab.Line(Long.parseLong(p.getProperty("line.real0")),
                    Long.parseLong(p.getProperty("line.raw0")), Double.parseDouble(p.getProperty("line.rate"))),
                    Long.parseLong(p.getProperty("raw0")), phase, Double.parseDouble(p.getProperty("stepAt")),
                    Double.parseDouble(p.getProperty("lostFrom")), Double.parseDouble(p.getProperty("lostTo")));
        }
    }

    static void reference(String[] a) throws Throwable {
        Properties state = new Properties();
        try (var r = Files.newBufferedReader(Path.of(a[1]))) {
            state.load(r);
        }
        ClockLab.Line line = ClockLab.Line.of(state);
        int unit = Integer.parseInt(a[2]);
        SplittableRandom rnd = new SplittableRandom(Long.parseLong(a[3]));
        double seconds = Double.parseDouble(a[4]), offsetUs = Double.parseDouble(a[5]);
        double stepAt = Double.parseDouble(a[6]), stepMs = Double.parseDouble(a[7]);
        double lostFrom = Double.parseDouble(a[8]), lostTo = Double.parseDouble(a[9]);
        Path knots = Path.of(a[10]);

        int n = (int) Math.ceil(seconds * S / KNOT_NS) + 2;
        double[] phase = new double[n];
        double freqPpm = 0;
        for (int i = 1; i < n; i++) {
            if (i % 100 == 0) freqPpm = Math.max(-8, Math.min(8, freqPpm + rnd.nextDouble(-1.5, 1.5)));
            phase[i] = phase[i - 1] + freqPpm * 1e-6 * KNOT_NS + rnd.nextGaussian() * 5;
        }
        long raw0 = ClockLab.clock(ClockLab.CLOCK_MONOTONIC_RAW);
        Truth truth = new Truth(line, raw0, phase, stepAt, lostFrom, lostTo);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append(i == 0 ? "" : ",").append(phase[i]);
        Properties out = new Properties();
        out.setProperty("line.real0", Long.toString(line.real0()));
        out.setProperty("line.raw0", Long.toString(line.raw0()));
        out.setProperty("line.rate", Double.toString(line.rate()));
        out.setProperty("raw0", Long.toString(raw0));
        out.setProperty("stepAt", Double.toString(stepAt));
        out.setProperty("lostFrom", Double.toString(lostFrom));
        out.setProperty("lostTo", Double.toString(lostTo));
        out.setProperty("phase", sb.toString());
        try (var w = Files.newBufferedWriter(knots)) {
            out.store(w, "BoundsLab model: true time = line(raw) + phase, knots " + KNOT_NS + " ns apart from raw0");
        }
        setOffset(Math.round(offsetUs * 1e3));
        System.out.printf("ready: %d knots, REALTIME set %+.0f us off true time%n", n, offsetUs);

        int key = ClockLab.SHM_KEY_BASE + unit;
        int id = (int) ClockLab.SHMGET.invokeExact(ClockLab.STATE, key, ClockLab.SHM_SIZE, 01000 | 0600);
        if (id < 0) throw new IllegalStateException(String.format("shmget(0x%x) failed, errno %d", key, ClockLab.errno()));
        MemorySegment shm = ((MemorySegment) ClockLab.SHMAT.invokeExact(ClockLab.STATE, id, MemorySegment.NULL, 0))
                .reinterpret(ClockLab.SHM_SIZE);
        VarHandle count = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();
        boolean stepped = false, lost = false;
        for (long k = 1; ; k++) {
            long wake = raw0 + k * KNOT_NS;
            for (long now; (now = ClockLab.clock(ClockLab.CLOCK_MONOTONIC_RAW)) < wake; ) {
                LockSupport.parkNanos(wake - now);
            }
            double t = k * 0.1;
            if (t >= seconds) break;
            if (!stepped && t >= stepAt) {
                stepped = true;
                setOffset(Math.round(stepMs * 1e6));
                System.out.printf("t=%.1fs REALTIME set %+.0f ms ahead%n", t, stepMs);
            }
            boolean inOutage = t >= lostFrom && t < lostTo;
            if (inOutage != lost) {
                lost = inOutage;
                System.out.printf("t=%.1fs reference %s%n", t, lost ? "lost" : "back");
            }
            long[] now = ClockLab.pair();
            if (!lost) {
                long ref = truth.at(now[1]) + Math.round(rnd.nextGaussian() * 100);
                ClockLab.publish(shm, count, count, ref, now[0]);
            }
            if (k % 10 == 0) {
                System.out.printf("t=%.0fs clock-true=%+.3fus phase=%+.3fus | %s%n", t,
                        (now[0] - truth.at(now[1])) / 1e3, (truth.at(now[1]) - line.at(now[1])) / 1e3,
                        ClockLab.describe(ClockLab.adjtimex(0, null)));
            }
        }
        System.out.println("done");
    }

    /** Sets REALTIME {@code nanos} ahead (behind where negative) at once: ADJ_SETOFFSET | ADJ_NANO. */
    static void setOffset(long nanos) throws Throwable {
        if (nanos == 0) return;
        ClockLab.adjtimex(ADJ_SETOFFSET | ClockLab.ADJ_NANO, tx -> {
            tx.set(java.lang.foreign.ValueLayout.JAVA_LONG, TX_TIME_SEC, Math.floorDiv(nanos, S));
            tx.set(java.lang.foreign.ValueLayout.JAVA_LONG, TX_TIME_USEC, Math.floorMod(nanos, S));
        });
    }

    // ---- the reader ----------------------------------------------------------------------------------------------

    static void read(double seconds, int rate, Path out) throws Exception {
        var clock = org.timekeeping4j.device.BoundedClock.system();
        var b = new org.timekeeping4j.device.TimeBounds();
        var raw = org.timekeeping4j.ClockId.MONOTONIC_RAW;
        int n = (int) (seconds * rate);
        long[] r0 = new long[n], r1 = new long[n], early = new long[n], late = new long[n];
        byte[] status = new byte[n];
        long period = S / rate;
        String said = "";
        long start = org.timekeeping4j.Clocks.nanos(raw);
        for (int i = 0; i < n; i++) {
            long due = start + i * period;
            for (long now; (now = org.timekeeping4j.Clocks.nanos(raw)) < due - 20_000; ) {
                LockSupport.parkNanos(due - now - 20_000);
            }
            r0[i] = org.timekeeping4j.Clocks.nanos(raw);
            clock.now(b);
            r1[i] = org.timekeeping4j.Clocks.nanos(raw);
            early[i] = b.earliestNanos();
            late[i] = b.latestNanos();
            status[i] = (byte) b.status().ordinal();
            if (i % rate == 0) {
                String words = b.status() + " " + clock.description().replaceAll("[0-9]+ ns|[0-9]+ ms", "#");
                if (!words.equals(said)) {
                    said = words;
                    System.out.printf("read %d: %s | %s%n", i, b.status(), clock.description());
                }
            }
        }
        try (var w = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(out), 1 << 20))) {
            for (int i = 0; i < n; i++) {
                w.writeLong(r0[i]);
                w.writeLong(r1[i]);
                w.writeLong(early[i]);
                w.writeLong(late[i]);
                w.writeByte(status[i]);
            }
        }
        System.out.printf("read: %d reads written to %s%n", n, out);
    }

    // ---- the judge -----------------------------------------------------------------------------------------------

    static final org.timekeeping4j.device.TimeBounds.Status[] STATUS = org.timekeeping4j.device.TimeBounds.Status.values();

    static int judge(Path knots, double driftPpm, List<Path> files) throws IOException {
        Truth truth = Truth.load(knots);
        String[] windows = {"before the step", "after the step", "reference lost", "reference back",
                "chronyd stopped"};
        // Where chronyd was stopped (seconds into the scenario, on the model's clock; -Dlab.stoppedAt): from then
        // the source can say nothing, and the status must come to UNKNOWN.
        double stoppedAt = Double.parseDouble(System.getProperty("lab.stoppedAt", "Infinity"));
        int rc = 0;
        for (Path f : files) {
            List<List<Long>> halves = new ArrayList<>();
            long[][] counts = new long[windows.length][STATUS.length];
            long[] largerIn = new long[windows.length], largestIn = new long[windows.length];
            for (int w = 0; w < windows.length; w++) halves.add(new ArrayList<>());
            long reads = 0, bounded = 0, violations = 0, larger = 0, maxLarger = 0, refreshes = 0;
            long minMargin = Long.MAX_VALUE, widestBracket = 0;
            long prevR1 = 0, prevHalf = -1;
            int lastStatus = -1;
            try (var in = new DataInputStream(new BufferedInputStream(Files.newInputStream(f), 1 << 20))) {
                while (true) {
                    long r0, r1, early, late;
                    int st;
                    try {
                        r0 = in.readLong();
                    } catch (EOFException e) {
                        break;
                    }
                    r1 = in.readLong();
                    early = in.readLong();
                    late = in.readLong();
                    st = in.readByte();
                    reads++;
                    double t = truth.seconds(r0);
                    int w = t < truth.stepAt ? 0 : t < truth.lostFrom ? 1 : t < truth.lostTo ? 2 : t < stoppedAt ? 3 : 4;
                    lastStatus = st;
                    counts[w][st]++;
                    widestBracket = Math.max(widestBracket, r1 - r0);
                    if (STATUS[st] != org.timekeeping4j.device.TimeBounds.Status.SYNCHRONIZED
                            && STATUS[st] != org.timekeeping4j.device.TimeBounds.Status.FREE_RUNNING) {
                        prevHalf = -1;
                        continue;
                    }
                    bounded++;
                    long t0 = truth.at(r0), t1 = truth.at(r1);
                    if (t1 < early || t0 > late) {
                        if (violations++ < 20) {
                            System.out.printf("VIOLATION %s read %d at t=%.3fs %s: true %d..%d, interval %d..%d (%+d ns off)%n",
                                    f.getFileName(), reads, t, STATUS[st], t0, t1, early, late,
                                    t1 < early ? t1 - early : t0 - late);
                        }
                    }
                    minMargin = Math.min(minMargin, Math.min(t1 - early, late - t0)); // > 0 unless a violation
                    long half = (late - early) / 2;
                    halves.get(w).add(half);
                    if (prevHalf >= 0) {
                        long grown = prevHalf + (long) Math.ceil(driftPpm * 1e-6 * (r1 - prevR1) * 1.12) + 2;
                        if (half < prevHalf - 1) refreshes++;
                        if (half > grown) {
                            larger++;
                            maxLarger = Math.max(maxLarger, half - grown);
                            largerIn[w]++;
                            largestIn[w] = Math.max(largestIn[w], half - grown);
                        }
                    }
                    prevHalf = half;
                    prevR1 = r1;
                }
            }
            System.out.printf("== %s: %d reads over %.0f s, %d bounded, %d violations (true time certainly outside)%n",
                    f.getFileName(), reads, truth.seconds(prevR1), bounded, violations);
            System.out.printf("   closest approach of true time to an edge: %d ns inside; widest bracket %d ns%n",
                    bounded == 0 ? 0 : minMargin, widestBracket);
            if (bounded == 0) {
                System.out.println("   FAILED: no bounded read");
                rc = 1;
            }
            System.out.printf("   a new sample narrowed the served bound %d times; was larger than it grown at %.0f ppm"
                    + " %d times (by up to %d ns)%n", refreshes, driftPpm, larger, maxLarger);
            for (int w = 0; w < windows.length; w++) {
                List<Long> h = halves.get(w);
                h.sort(null);
                StringBuilder c = new StringBuilder();
                for (int s = 0; s < STATUS.length; s++) if (counts[w][s] > 0) c.append(' ').append(STATUS[s]).append('=').append(counts[w][s]);
                System.out.printf("   %-16s%s | half-width median %s, p99 %s; a new sample larger %d times (by up to %s)%n",
                        windows[w] + ":", c, h.isEmpty() ? "-" : us(h.get(h.size() / 2)),
                        h.isEmpty() ? "-" : us(h.get((int) (h.size() * 0.99))), largerIn[w], us(largestIn[w]));
            }
            if (violations > 0) rc = 1;
            int unknown = org.timekeeping4j.device.TimeBounds.Status.UNKNOWN.ordinal();
            if (stoppedAt != Double.POSITIVE_INFINITY && (counts[4][unknown] == 0 || lastStatus != unknown)) {
                System.out.printf("   FAILED: chronyd stopped, yet the status did not end UNKNOWN (last %s)%n",
                        lastStatus < 0 ? "-" : STATUS[lastStatus]);
                rc = 1;
            }
            if (reads < 1_000_000) {
                System.out.printf("   FAILED: %d reads, fewer than 10^6%n", reads);
                rc = 1;
            }
        }
        return rc;
    }

    static String us(long ns) {
        return String.format("%.1f us", ns / 1e3);
    }
}
