// scripts/lab/criu/CriuLoop.java: the JVM that scripts/lab/criu.sh checkpoints and restores. Run with the java
// launcher (source-file mode) against core's jar:
//   java --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -cp core.jar scripts/lab/criu/CriuLoop.java STOPFILE
// Public API only. Until STOPFILE exists it runs rounds, one line each (key=value, for the script to judge):
//   - every counter-backed clock (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI): BRACKETS reads
//     Clocks.nanos(c) between two KernelClocks.nanos(c); a read outside its bracket is counted (outside=);
//   - MONOTONIC and BOOTTIME: every value read, fast or kernel, against the last one this process saw (the count
//     of steps back: mono_back=, boot_back=), across checkpoints too: the process's memory comes back with it;
//   - what serves (serving=exact|tracker|kernel|mixed, from the library's diagnostics: serving());
//   - the cost: 10^6 Clocks.nanos(MONOTONIC) against 10^6 System.nanoTime, in 50 alternating blocks of each, the
//     fastest block of each (fast_ns=, nanotime_ns=, ratio= fast/nanoTime): a ratio within one round;
//   - one EventRecorder event per round (payload: the round), then an export on MONOTONIC: events recorded in an
//     earlier time namespace (before a checkpoint: CRIU restores into a new one) are `pre=`, those of them
//     exported not extrapolated `pre_exact=`, those exported later than a MONOTONIC read after the export
//     `pre_later=`; export=ok|failed (the reason on its own line, once per namespace).
// - the bounded clock (BoundedClock.system(), whatever source it found here): a thread reads it every 0.2 ms and
//   keeps, per time namespace, its first read's status and REALTIME (bounds_first=, bounds_first_real=), how many
//   reads were DISRUPTED (bounds_disrupted=), how many in all (bounds_reads=) and the last status (bounds_last=);
//   a read whose namespace differed before and after it is left out. The first read after a restore must be
//   DISRUPTED: the refresher serves no sample until a period after it saw the restore, and a period is 250 ms or
//   more, so a first read within that of the restore's start cannot find one (the script judges it so).
// The time namespace (ns=) is named by its inode and its offsets, "INODE/MONO_NS/BOOT_NS": the kernel reuses the
// inode number of a namespace that is gone, and a restore after a checkpoint gets the one its predecessor had
// (seen: restore 2 in 4026532177 as restore 1), never the same offsets. It is read before and after each
// event's record, so an event recorded while the process was being checkpointed is left out of pre= rather than
// put on the wrong side.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.TimeBounds;

public final class CriuLoop {
    static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME,
            ClockId.TAI};
    static final int BRACKETS = Integer.getInteger("criu.brackets", 100_000);
    static final int COST_PAIRS = 50;
    static final int COST_BLOCK_READS = 20_000;
    static final String NO_NS = "unknown";

    /** The bounded clock's reads in one time namespace; written by the bounds thread only. */
    static final class NsBounds {
        volatile String first;
        volatile long firstReal;
        volatile long disrupted;
        volatile long reads;
        volatile String last;
    }

    static final Map<String, NsBounds> BOUNDS = new ConcurrentHashMap<>();

    /** Reads the bounded clock every 0.2 ms, for ever (a daemon thread), into BOUNDS by time namespace. */
    static void readBounds(BoundedClock clock) {
        TimeBounds h = new TimeBounds();
        while (true) {
            String ns0 = timeNamespace();
            clock.now(h);
            String ns1 = timeNamespace();
            if (ns0.equals(ns1) && !ns0.equals(NO_NS)) {
                NsBounds b = BOUNDS.computeIfAbsent(ns0, k -> new NsBounds());
                if (b.first == null) {
                    b.firstReal = h.nanos();
                    b.first = h.status().name();
                }
                if (h.status() == TimeBounds.Status.DISRUPTED) {
                    b.disrupted++;
                }
                b.reads++;
                b.last = h.status().name();
            }
            LockSupport.parkNanos(200_000);
        }
    }

    static long lastMono = Long.MIN_VALUE;
    static long lastBoot = Long.MIN_VALUE;
    static long monoBack;
    static long bootBack;
    static long totalOutside;
    static long totalReads;
    static volatile long sink;
    static int outsideShown;

    /**
     * What serves the counter-backed clocks, in one word, from the library's diagnostics; the one place that
     * names them (the API is to be renamed). exact: the counter path, exact mode, and its "now" says the data is
     * read by exact mode (today's library keeps saying "exact" after a restore, with "now unknown (exact mode
     * does not serve)"); kernel; tracker; mixed when the clocks differ. The MONOTONIC reason goes to
     * {@code reason[0]}.
     */
    static String serving(String[] reason) {
        Map<ClockId, Diagnostics.Serving> paths = Clocks.diagnostics().clocks();
        String kind = null;
        for (ClockId c : CLOCKS) {
            Diagnostics.Serving p = paths.get(c);
            String k = !p.fromCounter() ? "kernel"
                    : !p.why().startsWith("exact") ? "tracker"
                    : p.why().contains("read by exact mode") ? "exact" : "exact-not-serving";
            kind = kind == null || kind.equals(k) ? k : "mixed";
        }
        reason[0] = paths.get(ClockId.MONOTONIC).why();
        return kind;
    }

    /** This process's time namespace as "INODE/MONO_NS/BOOT_NS" (see the header), or NO_NS where unreadable. */
    static String timeNamespace() {
        try {
            String s = Files.readSymbolicLink(Path.of("/proc/self/ns/time")).toString(); // time:[4026531834]
            StringBuilder id = new StringBuilder(s.substring(s.indexOf('[') + 1, s.indexOf(']')));
            for (String clock : new String[] {"monotonic", "boottime"}) {
                for (String line : Files.readAllLines(Path.of("/proc/self/timens_offsets"))) {
                    String[] f = line.trim().split("\\s+"); // "monotonic  -5  163380065"
                    if (f[0].equals(clock)) {
                        id.append('/').append(Long.parseLong(f[1]) * 1_000_000_000L + Long.parseLong(f[2]));
                    }
                }
            }
            return id.toString();
        } catch (Exception e) {
            return NO_NS;
        }
    }

    static void seeMono(long v) {
        if (v < lastMono) {
            monoBack++;
            if (monoBack <= 5) {
                System.out.println("criu-loop: MONOTONIC BACKWARDS " + lastMono + " -> " + v);
            }
        }
        lastMono = Math.max(lastMono, v);
    }

    static void seeBoot(long v) {
        if (v < lastBoot) {
            bootBack++;
            if (bootBack <= 5) {
                System.out.println("criu-loop: BOOTTIME BACKWARDS " + lastBoot + " -> " + v);
            }
        }
        lastBoot = Math.max(lastBoot, v);
    }

    /** BRACKETS reads of {@code c} between two kernel reads; returns how many fell outside. */
    static long bracketed(ClockId c) {
        long outside = 0;
        boolean mono = c == ClockId.MONOTONIC;
        boolean boot = c == ClockId.BOOTTIME;
        for (int i = 0; i < BRACKETS; i++) {
            long k0 = KernelClocks.nanos(c);
            long f = Clocks.nanos(c);
            long k1 = KernelClocks.nanos(c);
            if (f < k0 || f > k1) {
                outside++;
                if (outsideShown++ < 10) {
                    System.out.println("criu-loop: OUTSIDE " + c + " kernel " + k0 + " <= " + f + " <= " + k1 + "?");
                }
            }
            if (mono) {
                seeMono(k0);
                seeMono(f);
                seeMono(k1);
            } else if (boot) {
                seeBoot(k0);
                seeBoot(f);
                seeBoot(k1);
            }
        }
        return outside;
    }

    /**
     * The cost of Clocks.nanos(MONOTONIC) against System.nanoTime: COST_PAIRS pairs of back-to-back blocks of
     * COST_BLOCK_READS reads each (10^6 of each in all); {fastest block of Clocks.nanos, fastest block of
     * System.nanoTime, their ratio}, ns per read. Blocks of 20,000 reads (about 0.4 ms) are shorter than a
     * scheduler's slice, so on a shared machine most of them run unpreempted, and the fastest of 50 is each
     * read's own cost (a median of the pairs' ratios swung from 0.3 to 2.9 here while other jobs ran).
     */
    static double[] cost() {
        long fast = Long.MAX_VALUE;
        long nt = Long.MAX_VALUE;
        long acc = 0;
        for (int b = 0; b < COST_PAIRS; b++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < COST_BLOCK_READS; i++) {
                acc += Clocks.nanos(ClockId.MONOTONIC);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < COST_BLOCK_READS; i++) {
                acc += System.nanoTime();
            }
            long t2 = System.nanoTime();
            fast = Math.min(fast, t1 - t0);
            nt = Math.min(nt, t2 - t1);
        }
        sink = acc;
        return new double[] {(double) fast / COST_BLOCK_READS, (double) nt / COST_BLOCK_READS, (double) fast / nt};
    }

    public static void main(String[] args) throws Exception {
        Path stop = Path.of(args[0]);
        EventRecorder recorder = new EventRecorder(4096);
        Map<Long, String> eventNamespace = new HashMap<>(); // round -> namespace it was recorded in (unambiguously)
        long pid = ProcessHandle.current().pid();
        String[] reason = new String[1];
        String lastReason = null;
        String lastNs = timeNamespace();
        String failedExportNs = NO_NS;
        BoundedClock bounded = BoundedClock.system();
        System.out.println("criu-loop: start pid=" + pid + " ns=" + lastNs + " java=" + Runtime.version()
                + " brackets=" + BRACKETS + " clocks=" + CLOCKS.length + " bounds: " + bounded.description());
        Thread boundsReader = new Thread(() -> readBounds(bounded), "bounds-reader");
        boundsReader.setDaemon(true);
        boundsReader.start();
        for (long round = 1; !Files.exists(stop); round++) {
            String ns0 = timeNamespace();
            recorder.record(round);
            String ns1 = timeNamespace();
            if (ns0.equals(ns1) && !ns0.equals(NO_NS)) {
                eventNamespace.put(round, ns0);
            }
            long outside = 0;
            long reads = 0;
            for (ClockId c : CLOCKS) {
                outside += bracketed(c);
                reads += 3L * BRACKETS;
            }
            totalOutside += outside;
            totalReads += reads;
            String kind = serving(reason);
            if (!reason[0].equals(lastReason)) {
                System.out.println("criu-loop: serving MONOTONIC: " + reason[0]);
                lastReason = reason[0];
            }
            double[] cost = cost();
            // The export, then a MONOTONIC read: every event of an earlier namespace happened before that read.
            String nsNow = timeNamespace();
            long[] pre = new long[3]; // pre, pre_exact, pre_later
            long[] preMax = {Long.MIN_VALUE};
            String export = "ok";
            int exported = -1;
            try {
                exported = recorder.export(ClockId.MONOTONIC, (nanos, payload, extrapolated) -> {
                    String at = eventNamespace.get(payload);
                    if (at != null && !at.equals(nsNow)) {
                        pre[0]++;
                        if (!extrapolated) {
                            pre[1]++;
                        }
                        preMax[0] = Math.max(preMax[0], nanos);
                    }
                });
            } catch (RuntimeException e) {
                export = "failed";
                if (!failedExportNs.equals(nsNow)) {
                    System.out.println("criu-loop: export failed: " + e);
                    failedExportNs = nsNow;
                }
            }
            long mono = KernelClocks.nanos(ClockId.MONOTONIC);
            seeMono(mono);
            if (pre[0] > 0 && preMax[0] > mono) {
                pre[2]++;
            }
            long boot = KernelClocks.nanos(ClockId.BOOTTIME);
            seeBoot(boot);
            long real = KernelClocks.nanos(ClockId.REALTIME);
            if (!nsNow.equals(lastNs)) {
                System.out.println("criu-loop: time namespace " + lastNs + " -> " + nsNow);
                lastNs = nsNow;
            }
            NsBounds nb = BOUNDS.getOrDefault(nsNow, new NsBounds());
            System.out.println(String.format(Locale.ROOT, "criu-loop: round=%d ns=%s reads=%d outside=%d"
                            + " mono_back=%d boot_back=%d serving=%s fast_ns=%.2f nanotime_ns=%.2f ratio=%.3f"
                            + " events=%d pre=%d pre_exact=%d pre_later=%d export=%s mono=%d boot=%d real=%d"
                            + " total_reads=%d total_outside=%d bounds_first=%s bounds_first_real=%d"
                            + " bounds_disrupted=%d bounds_reads=%d bounds_last=%s",
                    round, nsNow, reads, outside, monoBack, bootBack, kind, cost[0], cost[1], cost[2],
                    exported, pre[0], pre[1], pre[2], export, mono, boot, real, totalReads, totalOutside,
                    nb.first, nb.firstReal, nb.disrupted, nb.reads, nb.last));
            Thread.sleep(100);
        }
        System.out.println("criu-loop: end pid=" + pid + " total_reads=" + totalReads + " total_outside="
                + totalOutside + " mono_back=" + monoBack + " boot_back=" + bootBack);
    }
}
