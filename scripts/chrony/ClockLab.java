// ClockLab: the helper of scripts/chrony-agreement.sh. Not part of the product; run from source with a JDK 25:
//   java --enable-native-access=ALL-UNNAMED scripts/chrony/ClockLab.java COMMAND ...
// Commands (root is needed for everything but 'state'):
//   state                 one line: the kernel's NTP state (adjtimex, read-only).
//   quiet SECONDS         exits 1 if the kernel's frequency, tick or status changes within SECONDS (read every 20 ms):
//                         something else is steering the clock, and saving its state now would save a moment of it.
//   save FILE             writes the kernel's NTP state and an anchor (REALTIME and MONOTONIC_RAW read together) to FILE.
//   restore FILE          puts the saved state back (frequency, tick, status, time constant, TAI offset, max/est error),
//                         clears a pending PLL offset and adjtime slew, then slews REALTIME back onto the line it
//                         followed before (the anchor advanced at the saved rate) with adjtime (500 ppm at most) and
//                         waits for the slew to finish. Prints what it did and the residual.
//   writer FILE UNIT SEED STEP_PERIOD_S STEP_US
//                         feeds chrony's SHM refclock UNIT (segment key 0x4e545030 + UNIT, struct shmTime, mode 1)
//                         every 100 ms with (reference time, receive time) until killed. The reference is the
//                         undisciplined clock (the anchor of FILE advanced over MONOTONIC_RAW at the saved rate) plus a
//                         synthetic phase: a random walk (0.5 us per step), a frequency wander (3 ppm sine of period
//                         40 s plus a random walk bounded to +-2 ppm) and, every STEP_PERIOD_S seconds, a step of
//                         STEP_US alternating in sign (0: none). Once a second it prints the phase, where the system
//                         clock is against the undisciplined line and the reference, and the kernel's NTP state.
// The reference is built on MONOTONIC_RAW, not on REALTIME itself: a reference defined as "the system clock plus x"
// would move with every correction chronyd makes and chronyd would chase it for ever.
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.SplittableRandom;

public final class ClockLab {
    // <linux/timex.h>, struct timex on LP64 (x86_64, aarch64): 208 bytes.
    static final long TX_SIZE = 208, TX_MODES = 0, TX_OFFSET = 8, TX_FREQ = 16, TX_MAXERROR = 24, TX_ESTERROR = 32,
            TX_STATUS = 40, TX_CONSTANT = 48, TX_TICK = 88, TX_TAI = 160;
    static final int ADJ_OFFSET = 0x0001, ADJ_FREQUENCY = 0x0002, ADJ_MAXERROR = 0x0004, ADJ_ESTERROR = 0x0008,
            ADJ_STATUS = 0x0010, ADJ_TIMECONST = 0x0020, ADJ_TAI = 0x0080, ADJ_MICRO = 0x1000, ADJ_NANO = 0x2000,
            ADJ_TICK = 0x4000, ADJ_OFFSET_SINGLESHOT = 0x8001, ADJ_OFFSET_SS_READ = 0xa001;
    static final int STA_PLL = 0x0001, STA_NANO = 0x2000;
    static final int CLOCK_REALTIME = 0, CLOCK_MONOTONIC_RAW = 4;
    // struct shmTime (ntpd's SHM driver, chrony's refclock_shm.c) on LP64: time_t is 8 bytes, 96 bytes in all.
    static final long SHM_SIZE = 96, SHM_MODE = 0, SHM_COUNT = 4, SHM_CLOCK_SEC = 8, SHM_CLOCK_USEC = 16,
            SHM_RECV_SEC = 24, SHM_RECV_USEC = 32, SHM_LEAP = 36, SHM_PRECISION = 40, SHM_NSAMPLES = 44,
            SHM_VALID = 48, SHM_CLOCK_NSEC = 52, SHM_RECV_NSEC = 56;
    static final int SHM_KEY_BASE = 0x4e545030;

    static final Linker LINKER = Linker.nativeLinker();
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    static final VarHandle ERRNO = CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    static final MethodHandle ADJTIMEX = down("adjtimex", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CLOCK_GETTIME = down("clock_gettime", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle SHMGET = down("shmget", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle SHMAT = down("shmat", FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));

    static final Arena ARENA = Arena.ofAuto();
    static final MemorySegment STATE = ARENA.allocate(CALL_STATE);
    static final MemorySegment TS = ARENA.allocate(16, 8);

    static MethodHandle down(String name, FunctionDescriptor fd) {
        MemorySegment sym = LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("no " + name));
        return LINKER.downcallHandle(sym, fd, Linker.Option.captureCallState("errno"));
    }

    static int errno() {
        return (int) ERRNO.get(STATE, 0L);
    }

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) usage();
        switch (args[0]) {
            case "state" -> System.out.println(describe(adjtimex(0, null)));
            case "quiet" -> quiet(Double.parseDouble(arg(args, 1)));
            case "save" -> save(Path.of(arg(args, 1)));
            case "restore" -> restore(Path.of(arg(args, 1)));
            case "writer" -> writer(Path.of(arg(args, 1)), Integer.parseInt(arg(args, 2)), Long.parseLong(arg(args, 3)),
                    Double.parseDouble(arg(args, 4)), Double.parseDouble(arg(args, 5)));
            default -> usage();
        }
    }

    static String arg(String[] args, int i) {
        if (i >= args.length) usage();
        return args[i];
    }

    static void usage() {
        System.err.println("usage: ClockLab state | quiet SECONDS | save FILE | restore FILE | writer FILE UNIT SEED STEP_PERIOD_S STEP_US");
        System.exit(2);
    }

    // ---- kernel clock state -------------------------------------------------------------------------------------

    /** Calls adjtimex with the given modes; fill (may be null) writes fields before the call. Returns the struct. */
    static MemorySegment adjtimex(int modes, java.util.function.Consumer<MemorySegment> fill) throws Throwable {
        MemorySegment tx = ARENA.allocate(TX_SIZE, 8);
        tx.set(JAVA_INT, TX_MODES, modes);
        if (fill != null) fill.accept(tx);
        int rc = (int) ADJTIMEX.invokeExact(STATE, tx);
        if (rc < 0) throw new IllegalStateException("adjtimex(modes=0x" + Integer.toHexString(modes) + ") failed, errno "
                + errno() + (errno() == 1 ? " (EPERM: run as root)" : ""));
        return tx;
    }

    static double freqPpm(MemorySegment tx) {
        return tx.get(JAVA_LONG, TX_FREQ) / 65536.0;
    }

    static String describe(MemorySegment tx) {
        int status = tx.get(JAVA_INT, TX_STATUS);
        return String.format("freq=%+.3fppm tick=%d pll_offset=%d%s status=0x%x constant=%d maxerror=%dus tai=%d",
                freqPpm(tx), tx.get(JAVA_LONG, TX_TICK), tx.get(JAVA_LONG, TX_OFFSET),
                (status & STA_NANO) != 0 ? "ns" : "us", status, tx.get(JAVA_LONG, TX_CONSTANT),
                tx.get(JAVA_LONG, TX_MAXERROR), tx.get(JAVA_INT, TX_TAI));
    }

    static long clock(int id) throws Throwable {
        int rc = (int) CLOCK_GETTIME.invokeExact(STATE, id, TS);
        if (rc != 0) throw new IllegalStateException("clock_gettime(" + id + ") failed, errno " + errno());
        return TS.get(JAVA_LONG, 0) * 1_000_000_000L + TS.get(JAVA_LONG, 8);
    }

    /** A (REALTIME, MONOTONIC_RAW) pair: the raw read between two realtime reads, realtime their middle. */
    static long[] pair() throws Throwable {
        long best = Long.MAX_VALUE, real = 0, raw = 0;
        for (int i = 0; i < 50; i++) { // the narrowest bracket of 50
            long r0 = clock(CLOCK_REALTIME), w = clock(CLOCK_MONOTONIC_RAW), r1 = clock(CLOCK_REALTIME);
            if (r1 - r0 < best) {
                best = r1 - r0;
                real = r0 + (r1 - r0) / 2;
                raw = w;
            }
        }
        return new long[] {real, raw};
    }

    /** What the undisciplined REALTIME would read at raw: the anchor advanced at the saved rate. */
    record Line(long real0, long raw0, double rate) {
        static Line of(Properties p) {
            long tick = Long.parseLong(p.getProperty("tick"));
            double freq = Long.parseLong(p.getProperty("freq")) / 65536.0;
            // A tick of 10000 us per 1/100 s is the nominal rate; freq (scaled ppm) speeds the clock up on top.
            return new Line(Long.parseLong(p.getProperty("anchor.realtime")), Long.parseLong(p.getProperty("anchor.raw")),
                    (tick / 10000.0) * (1 + freq * 1e-6));
        }

        long at(long raw) {
            return real0 + Math.round((raw - raw0) * rate);
        }
    }

    static void quiet(double seconds) throws Throwable {
        MemorySegment first = adjtimex(0, null);
        String before = describeSteering(first);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            String now = describeSteering(adjtimex(0, null));
            if (!now.equals(before)) {
                System.out.println("something else is steering the kernel clock: " + before + " became " + now
                        + " within " + seconds + " s");
                System.exit(1);
            }
            Thread.sleep(20);
        }
        System.out.println("kernel clock quiet for " + seconds + " s: " + describe(first));
    }

    static String describeSteering(MemorySegment tx) {
        return String.format("freq=%+.3fppm tick=%d status=0x%x", freqPpm(tx), tx.get(JAVA_LONG, TX_TICK),
                tx.get(JAVA_INT, TX_STATUS));
    }

    static void save(Path file) throws Throwable {
        MemorySegment tx = adjtimex(0, null);
        long[] p = pair();
        Properties out = new Properties();
        out.setProperty("freq", Long.toString(tx.get(JAVA_LONG, TX_FREQ)));
        out.setProperty("tick", Long.toString(tx.get(JAVA_LONG, TX_TICK)));
        out.setProperty("status", Integer.toString(tx.get(JAVA_INT, TX_STATUS)));
        out.setProperty("constant", Long.toString(tx.get(JAVA_LONG, TX_CONSTANT)));
        out.setProperty("maxerror", Long.toString(tx.get(JAVA_LONG, TX_MAXERROR)));
        out.setProperty("esterror", Long.toString(tx.get(JAVA_LONG, TX_ESTERROR)));
        out.setProperty("tai", Integer.toString(tx.get(JAVA_INT, TX_TAI)));
        out.setProperty("pll_offset", Long.toString(tx.get(JAVA_LONG, TX_OFFSET)));
        out.setProperty("adjtime_pending_us", Long.toString(adjtimex(ADJ_OFFSET_SS_READ, null).get(JAVA_LONG, TX_OFFSET)));
        out.setProperty("anchor.realtime", Long.toString(p[0]));
        out.setProperty("anchor.raw", Long.toString(p[1]));
        try (var w = Files.newBufferedWriter(file)) {
            out.store(w, "kernel clock state before chrony-agreement.sh");
        }
        System.out.println("saved: " + describe(tx));
    }

    static void restore(Path file) throws Throwable {
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        int status = Integer.parseInt(p.getProperty("status"));
        // 1. A pending PLL offset (time_offset) keeps slewing after the daemon is gone; ADJ_OFFSET 0 clears it, and the
        //    kernel takes ADJ_OFFSET only with STA_PLL set (ntp_update_offset). Within one call the kernel applies
        //    ADJ_STATUS before ADJ_OFFSET (process_adjtimex_modes).
        adjtimex(ADJ_STATUS | ADJ_OFFSET, tx -> {
            tx.set(JAVA_INT, TX_STATUS, STA_PLL);
            tx.set(JAVA_LONG, TX_OFFSET, 0);
        });
        // 2. The time constant, in nanosecond mode: in microsecond mode the kernel adds 4 to what it is given, so
        //    the boot value 2 could not be written back there (ADJ_NANO is applied before ADJ_TIMECONST).
        adjtimex(ADJ_NANO | ADJ_TIMECONST, tx -> tx.set(JAVA_LONG, TX_CONSTANT, Long.parseLong(p.getProperty("constant"))));
        // 3. The rest of the saved state. STA_NANO is read-only in status; ADJ_NANO / ADJ_MICRO set it.
        int units = (status & STA_NANO) != 0 ? ADJ_NANO : ADJ_MICRO;
        adjtimex(ADJ_STATUS | ADJ_FREQUENCY | ADJ_TICK | ADJ_MAXERROR | ADJ_ESTERROR | units, tx -> {
            tx.set(JAVA_INT, TX_STATUS, status);
            tx.set(JAVA_LONG, TX_FREQ, Long.parseLong(p.getProperty("freq")));
            tx.set(JAVA_LONG, TX_TICK, Long.parseLong(p.getProperty("tick")));
            tx.set(JAVA_LONG, TX_MAXERROR, Long.parseLong(p.getProperty("maxerror")));
            tx.set(JAVA_LONG, TX_ESTERROR, Long.parseLong(p.getProperty("esterror")));
        });
        // ADJ_TAI takes its value from the constant field, so it needs a call of its own.
        adjtimex(ADJ_TAI, tx -> tx.set(JAVA_LONG, TX_CONSTANT, Integer.parseInt(p.getProperty("tai"))));
        // 4. Where REALTIME now is against the line it followed before, and an adjtime slew (the kernel's 500 ppm)
        //    back onto it; a pending adjtime slew is replaced. Offsets beyond 0.5 s are stepped by nobody here: the
        //    caller gets told.
        Line line = Line.of(p);
        long[] now = pair();
        long off = now[0] - line.at(now[1]);
        System.out.printf("restore: kernel state back to %s%n", describe(adjtimex(0, null)));
        System.out.printf("restore: REALTIME was %+.3f us off its undisciplined line%n", off / 1e3);
        if (Math.abs(off) > 500_000_000L) {
            System.out.println("restore: more than 0.5 s off: not slewed; step it yourself (date -s) if it matters");
            return;
        }
        long slewUs = -Math.round(off / 1e3);
        adjtimex(ADJ_OFFSET_SINGLESHOT, tx -> tx.set(JAVA_LONG, TX_OFFSET, slewUs));
        long deadline = System.nanoTime() + (Math.abs(slewUs) / 500 + 5) * 1_000_000_000L;
        while (adjtimex(ADJ_OFFSET_SS_READ, null).get(JAVA_LONG, TX_OFFSET) != 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(1100); // the kernel applies the last part of the slew at the next second overflow
        long left = adjtimex(ADJ_OFFSET_SS_READ, null).get(JAVA_LONG, TX_OFFSET);
        now = pair();
        System.out.printf("restore: slewed %+d us; REALTIME now %+.3f us off its line (adjtime pending %d us)%n",
                slewUs, (now[0] - line.at(now[1])) / 1e3, left);
    }

    // ---- the SHM refclock writer --------------------------------------------------------------------------------

    static void writer(Path file, int unit, long seed, double stepPeriodS, double stepUs) throws Throwable {
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        Line line = Line.of(p);
        int key = SHM_KEY_BASE + unit;
        // chronyd creates the segment (IPC_CREAT, 0600) when it starts; create it here too so the start order is free.
        int id = (int) SHMGET.invokeExact(STATE, key, SHM_SIZE, 01000 | 0600);
        if (id < 0) throw new IllegalStateException(String.format("shmget(0x%x) failed, errno %d", key, errno()));
        MemorySegment shm = ((MemorySegment) SHMAT.invokeExact(STATE, id, MemorySegment.NULL, 0)).reinterpret(SHM_SIZE);
        if (shm.address() == -1L) throw new IllegalStateException("shmat failed, errno " + errno());
        VarHandle count = JAVA_INT.varHandle(), valid = JAVA_INT.varHandle();

        SplittableRandom rnd = new SplittableRandom(seed);
        final double dt = 0.1;
        double phaseNs = 0, walkPpm = 0, t = 0, nextStep = stepPeriodS > 0 ? stepPeriodS : Double.MAX_VALUE;
        int steps = 0;
        long start = System.nanoTime();
        System.out.printf("writer: SHM unit %d (key 0x%x), seed %d, step %s%n", unit, key, seed,
                stepPeriodS > 0 ? String.format("%+.0f us every %.0f s, alternating", stepUs, stepPeriodS) : "none");
        for (long n = 0; ; n++) {
            // The synthetic phase of the reference against the undisciplined clock.
            walkPpm = Math.max(-2, Math.min(2, walkPpm + rnd.nextGaussian() * 0.05));
            double freqPpm = 3 * Math.sin(2 * Math.PI * t / 40) + walkPpm;
            phaseNs += freqPpm * 1e-6 * dt * 1e9 + rnd.nextGaussian() * 500;
            if (t >= nextStep) {
                phaseNs += (steps++ % 2 == 0 ? 1 : -1) * stepUs * 1e3;
                nextStep += stepPeriodS;
                System.out.printf("writer: t=%.1fs reference steps by %+.0f us%n", t, (steps % 2 == 1 ? 1 : -1) * stepUs);
            }
            long[] now = pair();
            long receive = now[0];
            long ref = line.at(now[1]) + Math.round(phaseNs);
            publish(shm, count, valid, ref, receive);
            if (n % 10 == 0) {
                MemorySegment tx = adjtimex(0, null);
                System.out.printf("t=%.1fs phase=%+.3fus synth_freq=%+.3fppm | clock-line=%+.3fus clock-ref=%+.3fus"
                                + " | %s%n", t, phaseNs / 1e3, freqPpm, (receive - line.at(now[1])) / 1e3,
                        (receive - ref) / 1e3, describe(tx));
            }
            t += dt;
            long wake = start + Math.round(t * 1e9);
            long sleep = wake - System.nanoTime();
            if (sleep > 0) Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        }
    }

    /** One sample in mode 1: chronyd copies the struct, then takes it only if count is unchanged and valid is set. */
    static void publish(MemorySegment shm, VarHandle count, VarHandle valid, long ref, long receive) {
        valid.setOpaque(shm, SHM_VALID, 0);
        int c = (int) count.getOpaque(shm, SHM_COUNT);
        count.setOpaque(shm, SHM_COUNT, c + 1);
        // The body stores stay after the first count store, so a reader whose copy caught part of the new body also
        // sees a count different from the one it copied. Pairs with chronyd's re-read of count after its copy.
        VarHandle.storeStoreFence();
        shm.set(JAVA_INT, SHM_MODE, 1);
        shm.set(JAVA_LONG, SHM_CLOCK_SEC, Math.floorDiv(ref, 1_000_000_000L));
        shm.set(JAVA_INT, SHM_CLOCK_USEC, (int) (Math.floorMod(ref, 1_000_000_000L) / 1000));
        shm.set(JAVA_INT, SHM_CLOCK_NSEC, (int) Math.floorMod(ref, 1_000_000_000L));
        shm.set(JAVA_LONG, SHM_RECV_SEC, Math.floorDiv(receive, 1_000_000_000L));
        shm.set(JAVA_INT, SHM_RECV_USEC, (int) (Math.floorMod(receive, 1_000_000_000L) / 1000));
        shm.set(JAVA_INT, SHM_RECV_NSEC, (int) Math.floorMod(receive, 1_000_000_000L));
        shm.set(JAVA_INT, SHM_LEAP, 0);
        shm.set(JAVA_INT, SHM_PRECISION, -20);
        shm.set(JAVA_INT, SHM_NSAMPLES, 1);
        // Release: the body is visible before the second count store and before valid; pairs with chronyd's copy
        // (valid read with the body) and its count re-read.
        count.setRelease(shm, SHM_COUNT, c + 2);
        valid.setRelease(shm, SHM_VALID, 1);
    }
}
