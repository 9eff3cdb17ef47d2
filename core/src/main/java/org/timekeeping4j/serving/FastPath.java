package org.timekeeping4j.serving;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.ColdClockGettime;
import org.timekeeping4j.linux.Os;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * When the fast path serves: the first read costs what the JDK's costs, and exact mode takes over by itself.
 *
 * <p>Exact mode's discovery (the FFM start-up, /proc/self/maps, the layout recognised, the machine code mapped,
 * every clock checked against brackets of clock_gettime) takes tens of milliseconds in a cold JVM. None of it runs
 * on the reader's thread: the first cold read (or wait) starts a daemon thread that does it ({@value
 * Configuration#DISCOVERY}=background, the default; {@link Handover}; {@link #start} says when), while reads are
 * served by what costs nothing to set up: MONOTONIC and REALTIME by the JDK (System.nanoTime and Instant.now are
 * clock_gettime of the same clocks), the other clocks by one libc clock_gettime downcall ({@link ColdClockGettime}).
 * When discovery is done it publishes the serving mode, one {@link Backend} object ({@link ExactBackend},
 * {@link KernelBackend} or {@link JdkBackend}), and every read asks that object from then on. With
 * {@value Configuration#DISCOVERY}=caller there is no thread: the first read discovers.
 *
 * <p>Correct across the hand-over: every path returns the kernel's own value of the clock (clock_gettime, or exact
 * mode's read, equal to it bit for bit), so a clock read by one path and then by another never goes backwards,
 * within a thread or across threads ordered by happens-before.
 *
 * <p>Memory ordering: {@link #backend} is volatile. A discovery stores it after the classes the backend reads
 * through (KernelVdso, ClockGettimeStub) have finished initialising, and a reader calls the backend only after its
 * load of the field: the volatile store and load order everything the discovery did before the store (the
 * backend's final fields too) before the read. Class initialisation publishes those classes' static finals anyway
 * (JLS 12.4.2); the volatile adds promptness: a plain field read could be hoisted out of a reader's loop, which
 * would then never see the hand-over. On x86 a volatile load is a plain load; on aarch64 an ldar. Null until the
 * first discovery publishes: the reads below then serve from this class's own methods, so that the first read
 * loads no backend class.
 */
public final class FastPath implements Runnable {

    /** The serving mode, published by each discovery (see the class comment for the ordering); null before. */
    static volatile Backend backend;
    /** Null while the first discovery runs (so that the first read loads no enum). */
    static volatile Diagnostics.Stage stage;
    /** System.nanoTime when {@link #stage} began. */
    static volatile long since = System.nanoTime();
    static volatile String reason = "exact mode is being discovered; the JDK and clock_gettime serve";
    /** System.nanoTime at this class's first use: the first read. */
    private static final long FIRST_USE = since;
    /** Set by the first discovery that found exact mode; never cleared (see {@link #countsCycles()}). */
    static volatile boolean countsCycles;
    /** Nanoseconds the last discovery took (wall time on its thread), 0 before it ends. */
    static volatile long discoveryNanos;

    /**
     * Null on Linux, else why the library cannot serve here (every read reports it, the JDK's clocks too: their
     * semantics are Linux's only on Linux). Linux on a processor the bindings do not know is found on the discovery
     * thread: there the JDK's clocks serve MONOTONIC and REALTIME, and the others refuse ({@link Os}).
     */
    public static final String PLATFORM = "Linux".equals(System.getProperty("os.name")) ? null
            : Os.unsupportedReason(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));

    /**
     * The library's system properties (compile-time constants: naming them loads no class). Where none is set the
     * defaults apply and nothing can be wrong with them, so the first read does not load {@link Configuration}
     * (a cold JVM pays a class a few hundred microseconds); the discovery thread loads it.
     */
    static final String[] PROPERTIES = {Configuration.COUNTER, Configuration.VDSO, Configuration.EXECMEM,
        Configuration.VCLOCK, Configuration.DISCOVERY, Configuration.LEAP_SECONDS, Configuration.BOUNDS,
        Configuration.BOUNDS_DRIFT, Configuration.HISTORY};

    /**
     * Set once something asked for the parameter history ({@link #keepHistory}). Volatile: written before the
     * stage is read there, and read after the stage is written in {@code Handover.settle}, so that one of the two
     * starts it whichever comes first.
     */
    static volatile boolean historyWanted;

    /**
     * Asks for the kernel's parameter history ({@code timekeeping4j.history} seconds of it), so that ticks of that
     * age convert exactly: kept from now on where exact mode serves, or from when it does. Cheap after the first
     * call (one volatile load). An {@code EventRecorder} and the first ticks conversion ask.
     */
    public static void keepHistory() {
        if (historyWanted) {
            return;
        }
        historyWanted = true; // volatile store, then the stage's volatile load: pairs with Handover.settle
        if (stage == Diagnostics.Stage.EXACT) {
            startHistory();
            noteNamespace(); // the namespace events are recorded in, from the first recorder on
        }
    }

    /** The namespace's MONOTONIC offset last seen ({@link #noteNamespace}); Long.MIN_VALUE before the first look. */
    private static volatile long namespaceOffset = Long.MIN_VALUE;

    /**
     * Notes a restore into another time namespace that no re-discovery saw (CRIU's second restore lands at the same
     * addresses): where the namespace's MONOTONIC offset differs from the one last seen, the ticks read before now
     * are fenced off ({@code Disruptions}), as a re-discovery fences them. Two loads where nothing changed.
     */
    public static void noteNamespace() {
        if (!countsCycles) {
            return;
        }
        long off = org.timekeeping4j.vdso.KernelVdso.monotonicOffsetNow();
        long last = namespaceOffset;
        if (off != last) {
            namespaceOffset = off; // volatile: a racing converter notes the same move at most twice, harmlessly
            if (last != Long.MIN_VALUE) {
                org.timekeeping4j.disruption.Disruptions.seen(ticks());
            }
        }
    }

    /** Starts the history where it is wanted and configured; idempotent. */
    static void startHistory() {
        int seconds = Configuration.PROCESS.historySeconds();
        if (seconds > 0 && countsCycles) {
            org.timekeeping4j.vdso.KernelVdso.keepHistory(seconds * 1_000_000_000L);
        }
    }

    /** {@return the diagnostics' history line} */
    static String historyLine() {
        int seconds = Configuration.PROCESS.historySeconds();
        if (seconds == 0) {
            return "none kept: " + Configuration.HISTORY + "=0";
        }
        if (!historyWanted) {
            return "none kept yet: an EventRecorder or a ticks conversion starts it";
        }
        String line = countsCycles ? org.timekeeping4j.vdso.KernelVdso.historyDescription() : null;
        return line != null ? line : "none kept: exact mode does not serve (ticks are MONOTONIC_RAW ns)";
    }

    /** Whether any of {@link #PROPERTIES} is set. */
    private static final boolean CONFIGURED = anySet(PROPERTIES);

    static {
        if (CONFIGURED) {
            Configuration.warnOnce(); // a bad value: one line each, then its default (no read refuses for it)
        }
    }

    static final Object LOCK = new Object();
    /** Guarded by {@link #LOCK}: no discovery runs. */
    static boolean settled;

    /**
     * Whether the first discovery has begun: on the caller's thread during this class's initialisation (discovery=
     * caller), else on its daemon thread, which the first read starts ({@link #start}). Written under {@link #LOCK}.
     */
    private static volatile boolean started;

    static {
        if (CONFIGURED && Configuration.PROCESS.onCaller()) {
            started = true;
            Handover.discover();
        }
    }

    /**
     * Starts the first discovery on its daemon thread, once: called by every cold read and every wait for a
     * discovery. A cold read of a clock the JDK does not serve calls it after its read, so that its FFM start-up
     * (that read's handle: the JDK's, tens of milliseconds of one CPU) does not run beside the discovery's, the
     * two competing for the CPU and both later; the discovery then starts over a warm JDK. Every other first use
     * starts it at once. Where no thread can be started (the process at its pids limit), the caller discovers, as
     * with {@value Configuration#DISCOVERY}=caller, and the diagnostics' reason says so.
     */
    static void start() {
        if (!started) {
            Throwable refused = null;
            synchronized (LOCK) {
                if (started) {
                    return;
                }
                started = true; // before the thread starts: its reads must not start another
                try {
                    Thread t = new Thread(new FastPath(), "timekeeping4j-discovery");
                    t.setDaemon(true);
                    t.start();
                } catch (Throwable e) { // OutOfMemoryError where no thread is to be had (a pids limit, no stack)
                    refused = e;
                }
            }
            if (refused != null) {
                // What discovery=caller does, once: this read pays the discovery, and no later read throws for
                // want of a thread. Outside LOCK, which the discovery's settle takes and waiters wait on.
                Handover.discover("the discovery thread could not be started (" + refused
                        + "), so the thread of the first read or wait discovered");
            }
        }
    }

    private static boolean anySet(String[] properties) {
        for (String p : properties) {
            if (System.getProperty(p) != null) {
                return true;
            }
        }
        return false;
    }

    /** The discovery thread's work: this class, not a lambda or a class of its own (each costs a cold JVM). */
    private FastPath() {}

    @Override
    public void run() {
        Handover.discover();
    }

    // The reads. Each loads the mode once (one volatile load) and calls it: the JIT inlines the call (see Backend).
    // Until the first discovery publishes a mode, this class's own cold reads serve: the JDK's clocks, libc's.

    /**
     * The clock's current value in nanoseconds by the serving mode: Clocks.nanos.
     *
     * @param clock the clock
     * @return the clock's value in ns
     */
    public static long nanos(ClockId clock) {
        // Identity tests, not a switch: an enum switch loads a lookup table on the read's critical path.
        if (clock == ClockId.MONOTONIC) {
            return monotonic();
        }
        if (clock == ClockId.REALTIME) {
            return realtime();
        }
        if (clock == ClockId.MONOTONIC_RAW) {
            return monotonicRaw();
        }
        if (clock == ClockId.BOOTTIME) {
            return boottime();
        }
        if (clock == ClockId.TAI) {
            return tai();
        }
        Backend b = backend;
        return b != null ? b.nanos(clock) : coldNanos(clock);
    }

    /** {@return MONOTONIC in ns} */
    public static long monotonic() {
        Backend b = backend;
        return b != null ? b.monotonic() : coldMonotonic();
    }

    /** {@return REALTIME in ns} */
    public static long realtime() {
        Backend b = backend;
        return b != null ? b.realtime() : coldRealtime();
    }

    /** {@return MONOTONIC_RAW in ns} */
    public static long monotonicRaw() {
        Backend b = backend;
        return b != null ? b.monotonicRaw() : coldCounter(ClockId.MONOTONIC_RAW);
    }

    /** {@return BOOTTIME in ns} */
    public static long boottime() {
        Backend b = backend;
        return b != null ? b.boottime() : coldCounter(ClockId.BOOTTIME);
    }

    /** {@return TAI in ns} */
    public static long tai() {
        Backend b = backend;
        return b != null ? b.tai() : coldCounter(ClockId.TAI);
    }

    /**
     * A counter-backed clock by its descriptor: the path a counter clock without a method of its own above takes
     * ({@link Backend#nanos}), here for any of them.
     *
     * @param clock the clock's descriptor
     * @return the clock's value in ns
     */
    public static long counterNanos(CounterClock clock) {
        Backend b = backend;
        return b != null ? b.nanos(clock.clock()) : coldCounter(clock.clock());
    }

    /**
     * Clocks.nanosUnordered: the counter read unordered where the serving mode reads it.
     *
     * @param clock the clock
     * @return the clock's value in ns
     */
    public static long nanosUnordered(ClockId clock) {
        Backend b = backend;
        return b != null ? b.nanosUnordered(clock) : nanos(clock);
    }

    /**
     * KernelClocks.nanos: clock_gettime, through the kernel path's stubs once a mode is chosen.
     *
     * @param clock the clock
     * @return the clock's value in ns from clock_gettime
     */
    public static long kernelNanos(ClockId clock) {
        Backend b = backend;
        return b != null ? b.kernelNanos(clock) : KernelPath.cold(clock);
    }

    /**
     * Clocks.ticks: the counter read unordered, or MONOTONIC_RAW ns where ticks are not counter cycles. Until the
     * first discovery decides which, waits for it.
     *
     * @return a tick
     */
    public static long ticks() {
        Backend b = backend;
        return (b != null ? b : current()).ticks();
    }

    /**
     * Clocks.snapshot: {@code clock} and MONOTONIC_RAW at one instant, into {@code into} (the counter read is the
     * first thing the serving mode does: one volatile load and one call before it). Waits for the first discovery.
     *
     * @param clock a counter-backed clock
     * @param into  the holder to fill
     * @throws IllegalArgumentException for another clock
     */
    public static void snapshot(ClockId clock, Capture into) {
        Backend b = backend;
        (b != null ? b : current()).snapshot(clock, into);
    }

    /**
     * Clocks.crossTimestamp: two clocks at one instant, from one counter read where the serving mode reads both,
     * else the narrowest of {@code samples} brackets.
     *
     * @param a       the first clock
     * @param b       the second clock
     * @param samples brackets to try where no counter read serves both
     * @param into    the holder to fill
     */
    public static void crossTimestamp(ClockId a, ClockId b, int samples, Capture into) {
        if (!current().crossFromCounter(a, b, into)) {
            into.sampled(a, b, samples);
        }
    }

    /** The serving mode; waits for the first discovery to publish one (every discovery publishes one). */
    static Backend current() {
        Backend b = backend;
        if (b == null) {
            awaitSettled();
            b = backend;
        }
        return b;
    }

    // The cold reads: before the first discovery publishes a mode, and JdkBackend's for good.

    static long coldMonotonic() {
        start();
        refuseOnError();
        return System.nanoTime();
    }

    /**
     * REALTIME by the JDK's Instant.now: clock_gettime(CLOCK_REALTIME) in ns (its Instant is scalar-replaced once
     * compiled).
     */
    static long coldRealtime() {
        start();
        refuseOnError();
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** A counter-backed clock the JDK does not read: libc's clock_gettime. */
    static long coldCounter(ClockId clock) {
        refuseOnError();
        return KernelPath.cold(clock);
    }

    /** Any other clock: the configuration error first where it is counter-backed, as by its own read. */
    static long coldNanos(ClockId clock) {
        return CounterClock.of(clock) != null ? coldCounter(clock) : KernelPath.cold(clock);
    }

    /** Throws what keeps this process from reading clocks: another platform. */
    private static void refuseOnError() {
        if (PLATFORM != null) {
            throw Os.unsupported(PLATFORM); // built there: verifying this class then loads no exception class
        }
    }

    // The stage, for descriptions and for the paths that wait for a discovery.

    /** {@return true while exact mode serves the counter-backed clocks} */
    public static boolean exact() {
        Backend b = backend;
        return b != null && b.servesFromCounter();
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
    public static Diagnostics.Stage stage() {
        Diagnostics.Stage s = stage;
        return s == null ? Diagnostics.Stage.DISCOVERING : s;
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
        start();
        return Handover.await(timeoutNanos); // there: verifying this class loads no InterruptedException
    }

    /** Waits, without a timeout, until no discovery runs; for the paths that need its outcome (ticks, snapshots). */
    public static void awaitSettled() {
        start();
        Handover.awaitSettled();
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
        Handover.rediscover(why);
    }
}
