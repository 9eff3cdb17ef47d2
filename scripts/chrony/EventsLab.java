// EventsLab: the proof that old events convert exactly (the parameter history) while chronyd steers the clock; the
// helper of scripts/chrony-events.sh. Not part of the product; run from source with a JDK 25, the CLI jar on the
// class path:
//   java --enable-native-access=ALL-UNNAMED -cp cli/target/tk4j.jar scripts/chrony/EventsLab.java SECONDS RATE MAX_AGE_S
// Records RATE events a second for SECONDS at random moments (exponential gaps), each one Clocks.ticks() between two
// clock_gettime reads of its clock (KernelClocks.nanos; REALTIME, MONOTONIC, BOOTTIME and TAI in turn), into an
// EventRecorder that holds MAX_AGE_S + 15 s of them. Every 5 s another thread exports the recorder on each of the
// four clocks (EventRecorder.export, as a user would) and judges every event of that clock no older than MAX_AGE_S:
// an exact one (not extrapolated) must lie inside its bracket; a flagged one is converted again by
// Clocks.snapshotAt and must lie within its errorBoundNanos of the bracket. Each event is so judged at ages from 0 to
// MAX_AGE_S. Prints the totals and the history's diagnostics line; exits 1 on any dishonest conversion or fewer than
// 10^6 events judged at an age of 50 s or more.
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.Snapshot;

public final class EventsLab {
    static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI};

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int rate = Integer.parseInt(args[1]);
        long maxAge = Long.parseLong(args[2]) * 1_000_000_000L;
        int n = Math.toIntExact((long) seconds * rate);
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] ticks = new long[n];
        long[] at = new long[n]; // System.nanoTime at the record: the event's age at each export
        boolean[] oldJudged = new boolean[n];
        int capacity = Integer.highestOneBit((int) Math.min(1 << 28, (long) rate * (maxAge / 1_000_000_000L + 15)) * 2);
        EventRecorder recorder = new EventRecorder(capacity);
        if (!Clocks.awaitExactMode(java.time.Duration.ofSeconds(10))) {
            System.out.println("events-lab: FAILED: exact mode does not serve: " + Clocks.diagnostics().why());
            System.exit(2);
        }
        long cpu0 = samplerCpuTicks();
        long wall0 = System.nanoTime();
        long[] totals = new long[8]; // judged, exact, flagged, exact outside, flagged beyond bound, old judged
        java.util.TreeMap<Long, Long> bounds = new java.util.TreeMap<>();
        int[] recorded = {0};
        Thread exporter = new Thread(() -> {
            Snapshot s = new Snapshot();
            try {
                while (true) {
                    Thread.sleep(5_000);
                    judge(recorder, lo, hi, ticks, at, oldJudged, maxAge, totals, bounds, s);
                    synchronized (recorded) {
                        if (recorded[0] < 0) {
                            return;
                        }
                    }
                }
            } catch (InterruptedException e) {
                judge(recorder, lo, hi, ticks, at, oldJudged, maxAge, totals, bounds, s); // a last export
            }
        }, "exporter");
        exporter.start();
        SplittableRandom rnd = new SplittableRandom(46);
        double meanGap = 1e9 / rate;
        long next = System.nanoTime();
        for (int i = 0; i < n; i++) {
            next += (long) (-Math.log(1 - rnd.nextDouble()) * meanGap);
            long wait = next - System.nanoTime();
            if (wait > 150_000) {
                LockSupport.parkNanos(wait - 100_000);
            }
            while (System.nanoTime() - next < 0) {
                Thread.onSpinWait();
            }
            ClockId c = CLOCKS[i % CLOCKS.length];
            long k0 = KernelClocks.nanos(c);
            long t = Clocks.ticks();
            long k1 = KernelClocks.nanos(c);
            lo[i] = k0;
            hi[i] = k1;
            ticks[i] = t;
            at[i] = System.nanoTime();
            recorder.record(t, i);
        }
        Thread.sleep(maxAge / 1_000_000 + 1_000); // the last events reach the oldest age judged
        exporter.interrupt();
        exporter.join();
        long oldCount = 0;
        for (boolean b : oldJudged) {
            oldCount += b ? 1 : 0;
        }
        System.out.printf("events-lab: %d events recorded over %d s; %d conversions judged at ages 0-%d s: %d exact"
                        + " (%.6f%%), %d flagged; %d exact but outside their bracket, %d flagged beyond their bound;"
                        + " %d events judged at an age of 50 s or more%n", n, seconds, totals[0], maxAge / 1_000_000_000L,
                totals[1], 100.0 * totals[1] / Math.max(1, totals[0]), totals[2], totals[3], totals[4], oldCount);
        System.out.println("events-lab: flagged bounds (ns: count): " + (bounds.size() > 20
                ? bounds.headMap(21L) + " ... " + bounds.size() + " distinct, largest " + bounds.lastKey() : bounds));
        System.out.println("events-lab: history: " + Clocks.diagnostics().history());
        double cpuS = (samplerCpuTicks() - cpu0) / 100.0; // USER_HZ
        System.out.printf("events-lab: the history's sampler used %.2f s of CPU in %.0f s (%.2f%% of one CPU)%n", cpuS,
                (System.nanoTime() - wall0) / 1e9, 100 * cpuS / ((System.nanoTime() - wall0) / 1e9));
        boolean ok = totals[3] == 0 && totals[4] == 0 && oldCount >= 1_000_000;
        System.out.println("events-lab: " + (ok ? "PASSED" : "FAILED"));
        System.exit(ok ? 0 : 1);
    }

    /** utime + stime of the history's sampler thread (/proc/self/task/TID/stat), in clock ticks; 0 where none. */
    static long samplerCpuTicks() {
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                if (java.nio.file.Files.readString(t.resolve("comm")).strip().startsWith("timekeeping4j-h")) {
                    String stat = java.nio.file.Files.readString(t.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    /** One export on each clock; judges the events of that clock no older than maxAge. */
    static void judge(EventRecorder recorder, long[] lo, long[] hi, long[] ticks, long[] at, boolean[] oldJudged,
            long maxAge, long[] totals, java.util.TreeMap<Long, Long> bounds, Snapshot s) {
        for (int k = 0; k < CLOCKS.length; k++) {
            ClockId clock = CLOCKS[k];
            int kk = k;
            long now = System.nanoTime();
            recorder.export(clock, (nanos, payload, extrapolated) -> {
                int i = (int) payload;
                if (i % CLOCKS.length != kk) {
                    return;
                }
                long age = now - at[i];
                if (age > maxAge) {
                    return;
                }
                totals[0]++;
                if (age >= 50_000_000_000L) {
                    oldJudged[i] = true;
                }
                if (!extrapolated) {
                    totals[1]++;
                    if (nanos < lo[i] || nanos > hi[i]) {
                        if (totals[3]++ < 10) {
                            System.out.printf("events-lab: EXACT OUTSIDE %s event %d at age %.1f s: %d not in [%d, %d]%n",
                                    clock, i, age / 1e9, nanos, lo[i], hi[i]);
                        }
                    }
                    return;
                }
                totals[2]++;
                Clocks.snapshotAt(ticks[i], clock, s);
                long bound = s.errorBoundNanos();
                bounds.merge(bound, 1L, Long::sum);
                long off = s.nanos() < lo[i] ? lo[i] - s.nanos() : s.nanos() > hi[i] ? s.nanos() - hi[i] : 0;
                if (off > bound) {
                    if (totals[4]++ < 10) {
                        System.out.printf("events-lab: BEYOND BOUND %s event %d at age %.1f s: %d ns outside, bound %d%n",
                                clock, i, age / 1e9, off, bound);
                    }
                }
            });
        }
    }
}
