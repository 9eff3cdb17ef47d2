package org.timekeeping4j.serving;

import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.linux.ColdClockGettime;
import org.timekeeping4j.linux.Os;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.vdso.DiscoveryPhases;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * When the fast path serves: the first read costs what the JDK's costs, and exact mode takes over by itself.
 *
 * <p>Exact mode's discovery (the FFM start-up, /proc/self/maps, the layout recognised, the machine code mapped,
 * every clock checked against brackets of clock_gettime) takes tens of milliseconds in a cold JVM. None of it runs
 * on the reader's thread: the first use of this class starts a daemon thread that does it ({@value
 * Configuration#DISCOVERY}=background, the default), while reads are served by what costs nothing to set up:
 * MONOTONIC and REALTIME by the JDK (System.nanoTime and Instant.now are clock_gettime of the same clocks), the
 * other clocks by one libc clock_gettime downcall ({@link ColdClockGettime}). When discovery is done, {@link #exact()}
 * turns true and the reads go to exact mode; where exact mode refuses, the kernel path's stubs serve
 * ({@link #mapped()}). With {@value Configuration#DISCOVERY}=caller there is no thread: the first read discovers.
 *
 * <p>Correct across the hand-over: every path returns the kernel's own value of the clock (clock_gettime, or exact
 * mode's read, equal to it bit for bit), so a clock read by one path and then by another never goes backwards,
 * within a thread or across threads ordered by happens-before.
 *
 * <p>Memory ordering: {@link #exact} and {@link #mapped} are volatile. The discovery thread writes them after the
 * classes they open (KernelVdso, ClockGettimeStub) have finished initialising, and a reader that sees true touches
 * those classes only after its read of the flag; class initialisation itself publishes their static finals
 * (JLS 12.4.2), so the volatile adds promptness: a plain field read could be hoisted out of a reader's loop, which
 * would then never see the hand-over. On x86 a volatile load is a plain load; on aarch64 an ldar.
 */
public final class FastPath implements Runnable {

    /** What serves the counter-backed clocks now. */
    public enum Stage {
        /** Discovery runs: the JDK and libc's clock_gettime serve. */
        DISCOVERING,
        /** Exact mode serves. */
        EXACT,
        /** Exact mode refused (or was not asked for): the kernel's clock_gettime serves. */
        KERNEL,
        /** The JVM denies this library native access: the JDK serves MONOTONIC and REALTIME, nothing else. */
        DENIED
    }

    /** True while exact mode serves (see the class comment for the ordering). */
    private static volatile boolean exact;
    /** True once the kernel path's stubs are mapped (ClockGettimeStub initialised). */
    private static volatile boolean mapped;
    /** Null while the first discovery runs (so that the first read loads no enum). */
    private static volatile Stage stage;
    /** System.nanoTime when {@link #stage} began. */
    private static volatile long since = System.nanoTime();
    private static volatile String reason = "exact mode is being discovered; the JDK and clock_gettime serve";
    /** System.nanoTime at this class's first use: the first read. */
    private static final long FIRST_USE = since;
    /** Set by the first discovery that found exact mode; never cleared (see {@link #countsCycles()}). */
    private static volatile boolean countsCycles;
    /** Nanoseconds the last discovery took (wall time on its thread), 0 before it ends. */
    private static volatile long discoveryNanos;

    /**
     * Null on Linux, else why the library cannot serve here (every read reports it, the JDK's clocks too: their
     * semantics are Linux's only on Linux). Linux on a processor the bindings do not know is found on the discovery
     * thread: there the JDK's clocks serve MONOTONIC and REALTIME, and the others refuse ({@link Os}).
     */
    public static final String PLATFORM = "Linux".equals(System.getProperty("os.name")) ? null
            : Os.unsupportedReason(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));

    /** The configuration's error (every read reports it), or null. */
    public static final IllegalArgumentException CONFIG_ERROR = Configuration.PROCESS.error();

    private static final Object LOCK = new Object();
    /** Guarded by {@link #LOCK}: no discovery runs. */
    private static boolean settled;

    static {
        if (Configuration.PROCESS.onCaller()) {
            discover();
        } else {
            Thread t = new Thread(new FastPath(), "timekeeping4j-discovery");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The discovery thread's work: this class, not a lambda or a class of its own (each costs a cold JVM). */
    private FastPath() {}

    @Override
    public void run() {
        discover();
    }

    /** {@return true while exact mode serves the counter-backed clocks} */
    public static boolean exact() {
        return exact;
    }

    /** {@return true once the kernel path's machine code serves clock_gettime (else {@link ColdClockGettime} does)} */
    public static boolean mapped() {
        return mapped;
    }

    /**
     * Whether {@code Clocks.ticks()} returns counter cycles: decided by the first discovery (exact mode served
     * then), for the life of the process, so that every tick it hands out means the same thing. Waits for that
     * discovery.
     *
     * @return true where ticks are counter cycles
     */
    public static boolean countsCycles() {
        awaitSettled();
        return countsCycles;
    }

    /** {@return what serves now} */
    public static Stage stage() {
        Stage s = stage;
        return s == null ? Stage.DISCOVERING : s;
    }

    /** {@return System.nanoTime when the current stage began} */
    public static long since() {
        return since;
    }

    /** {@return System.nanoTime at the first read of this process} */
    public static long firstUse() {
        return FIRST_USE;
    }

    /** {@return why the current stage serves (one line)} */
    public static String reason() {
        return reason;
    }

    /** {@return how long the last discovery took on its thread, in ns; 0 while it runs} */
    public static long discoveryNanos() {
        return discoveryNanos;
    }

    /**
     * Waits until no discovery runs, at most {@code timeoutNanos}.
     *
     * @param timeoutNanos how long to wait at most (0: do not wait)
     * @return true when discovery has ended (whatever it decided), false at the timeout
     */
    public static boolean await(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (LOCK) {
            while (!settled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    LOCK.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return settled;
                }
            }
            return true;
        }
    }

    /** Waits, without a timeout, until no discovery runs; for the paths that need its outcome (ticks, snapshots). */
    public static void awaitSettled() {
        boolean interrupted = false;
        synchronized (LOCK) {
            while (!settled) {
                try {
                    LOCK.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Discovers exact mode: the kernel path's stubs first (every clock exact mode does not serve reads through
     * them), then the kernel's vDSO data. Ends in {@link Stage#EXACT}, {@link Stage#KERNEL} or {@link Stage#DENIED}.
     */
    static void discover() {
        long t0 = System.nanoTime();
        DiscoveryPhases.begin(FIRST_USE);
        String unavailable = ColdClockGettime.unavailable();
        DiscoveryPhases.mark(DiscoveryPhases.FFM_BOOTSTRAP);
        if (unavailable != null) {
            discoveryNanos = System.nanoTime() - t0;
            if (PLATFORM == null) { // Linux, and this module may not call native code
                System.err.println("timekeeping4j: " + unavailable + "; until then the JDK serves MONOTONIC and"
                        + " REALTIME, and every other clock refuses");
            }
            settle(PLATFORM == null ? Stage.DENIED : Stage.KERNEL, unavailable);
            return;
        }
        try {
            ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_MONOTONIC); // maps the kernel path's stubs
            mapped = true;
            DiscoveryPhases.mark(DiscoveryPhases.KERNEL_STUBS);
            String why = KernelVdso.reason(); // initialises exact mode: Discovery.run
            DiscoveryPhases.mark(DiscoveryPhases.ENTRIES);
            // Written after KernelVdso finished initialising: a reader that sees true finds it ready.
            exact = why == null;
            countsCycles |= why == null;
            discoveryNanos = System.nanoTime() - t0;
            if (why == null) {
                KernelVdso.onMove(new MoveListener("the kernel's time data moved under the process (page 0 of"
                        + " [vvar] is a time namespace's page now: restored from a checkpoint)"));
                CracHook.register(); // where org.crac is present; a CRIU restore is noticed by the reads anyway
            }
            settle(why == null ? Stage.EXACT : Stage.KERNEL, why == null ? "exact mode serves" : why);
        } catch (Throwable e) {
            // A platform without the stubs (no executable memory, an unsupported architecture): libc's
            // clock_gettime serves; the classes whose initialisation failed are never touched again.
            discoveryNanos = System.nanoTime() - t0;
            settle(Stage.KERNEL, "the kernel's clock_gettime serves: discovery failed: " + e);
        }
    }

    /**
     * Discovers again, off the caller's path: the reads go to the kernel's clocks at once (never a stale exact
     * value), exact mode takes over again when the new discovery validates. Ticks taken so far are marked as
     * before a disruption (their conversions are flagged inexact: the counter of another host or boot, or one
     * that jumped, means nothing now). Does nothing while a discovery runs, or where exact mode never served.
     *
     * @param why what moved (one line, for the diagnostics)
     */
    public static void rediscover(String why) {
        synchronized (LOCK) {
            if (!settled || !countsCycles) {
                return;
            }
            settled = false;
            exact = false; // volatile: every read after this store goes to the kernel's clocks
            reason = why + "; discovering again, the kernel's clocks serve meanwhile";
            since = System.nanoTime();
            stage = Stage.DISCOVERING;
        }
        Disruptions.seen(VdsoStub.readCounterUnordered());
        Thread t = new Thread(new Rediscovery(why), "timekeeping4j-rediscovery");
        t.setDaemon(true);
        t.start();
    }

    /** What a read calls when it finds the kernel data moved: starts a re-discovery and returns at once. */
    private static final class MoveListener implements Runnable {
        private final String why;

        MoveListener(String why) {
            this.why = why;
        }

        @Override
        public void run() {
            rediscover(why);
        }
    }

    /** The re-discovery thread's work. */
    private static final class Rediscovery implements Runnable {
        private final String why;

        Rediscovery(String why) {
            this.why = why;
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            String refused;
            try {
                refused = KernelVdso.rediscover();
            } catch (RuntimeException | Error e) {
                refused = "discovery failed: " + e;
            }
            // After the sites were retargeted (KernelVdso.rediscover): a reader that sees true reads the new data.
            exact = refused == null;
            discoveryNanos = System.nanoTime() - t0;
            settle(refused == null ? Stage.EXACT : Stage.KERNEL, refused == null
                    ? "exact mode serves again (" + why + ")" : refused + " (" + why + ")");
        }
    }

    private static void settle(Stage s, String why) {
        DiscoveryPhases.finish();
        synchronized (LOCK) {
            reason = why;
            since = System.nanoTime();
            stage = s;
            settled = true;
            LOCK.notifyAll();
        }
    }
}
