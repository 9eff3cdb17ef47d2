package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MutableCallSite;
import java.util.Arrays;
import org.timekeeping4j.machine.VdsoStub;

/**
 * What serves exact mode's read call sites: the read's own code, or, where its fallbacks are the rule, the kernel
 * path's clock_gettime stubs ({@code machine.ClockGettimeStub}) called directly.
 *
 * <p>The read takes the counter before it knows clock_mode: right for every mode the code reads (its counter read
 * then waits for no load), wasted for a mode it does not read (clock_mode NONE under hpet or acpi_pm, Hyper-V's
 * page before a Hyper-V guest confirmed the reader, a vclock page not found backed), where the vDSO itself would
 * fall back. The x86_64 6.10+ read then calls clock_gettime itself after the wasted counter read; the others
 * return the fallback value and the caller pays a second downcall. With every read falling back, the clock_gettime
 * stubs measured 1.012x System.nanoTime where an entry that looked at clock_mode before the counter measured
 * 1.036x (docs/PERFORMANCE.md): so the stubs serve such a process, and no second entry exists.
 *
 * <p>A fallback comes back flagged (bit 63 set; the fallback value is a flagged 0). {@value #FLAGS_TO_SWITCH}
 * flagged reads since the read last served make the clock_gettime stubs the targets of every site at once, and
 * start a daemon thread ("timekeeping4j-clock-mode") that loads clock_mode every {@link #watchMillis} ms; once
 * the mode is one the read serves, it makes the read the targets again and ends. The stubs never flag: that
 * thread is the way back, and it exists only while the stubs serve. The targets live in {@link MutableCallSite}s
 * whose invokers the reader keeps in static finals: the JIT inlines the current target and records the
 * dependency, so a switch deoptimises the compiled readers once and costs the hot path nothing while it holds.
 * Every switch deoptimises, so switches are bounded: after {@value #MAX_SWITCHES} the stubs serve for good (the
 * kernel's own answer whatever the mode: never wrong, at most the vDSO's cost instead of the read's).
 *
 * <p>Memory ordering, decided here: the flag count is a plain field, updated racily on purpose (a lost increment
 * delays a switch by one read); a switch is decided under this object's lock, where the count is re-checked. The
 * targets are set without {@link MutableCallSite#syncAll}: another thread may keep calling the previous target
 * for a while, and both answer correctly (the read checks seq and clock_mode itself, clock_gettime is the
 * kernel's answer), so a stale target costs only speed. clock_mode is loaded plainly: a hint that picks the
 * target, never a value the read returns.
 */
final class ReadEntry {

    /** Flagged reads since the read last served that make the clock_gettime stubs serve. */
    static final int FLAGS_TO_SWITCH = 64;
    /**
     * Switches after which the clock_gettime stubs serve for good (each deoptimises the readers). Odd: the switches
     * alternate, the first to the stubs, so the last one is to the stubs too.
     */
    static final int MAX_SWITCHES = 63;
    /** How often the watcher looks at clock_mode while the stubs serve, in production. */
    static final long WATCH_MILLIS = 200;

    /** Per site: the read and the clock_gettime stub of one type; change only in {@link #retarget}. */
    private MethodHandle[] read;
    /** Null: no switching (a time namespace, or the stubs not mapped). */
    private MethodHandle[] clockGettime;
    /** Where the watcher loads clock_mode (4 bytes of the vDSO data), and the modes the read serves (bit m). */
    private MemorySegment mode;
    private int modesRead;
    private final MutableCallSite[] sites;
    private final MethodHandle[] invokers;
    private final long watchMillis;
    /** Racy on purpose (see the class comment). */
    private int flags;
    /** Guarded by this. */
    private int switches;
    private boolean clockGettimeServes;
    /** The watcher threads of this entry not yet ended: only a running one can make the read serve again. */
    private final java.util.concurrent.atomic.AtomicInteger watchers = new java.util.concurrent.atomic.AtomicInteger();

    /** {@return the watcher threads of this entry not yet ended (for tests: 0 means no switch back can come)} */
    int watchers() {
        return watchers.get();
    }

    /** Bumped by {@link #retarget}: a watcher started for an older generation ends. Guarded by this. */
    private int generation;

    /**
     * One call site per pair (a clock's read: {@code read[i]} and {@code clockGettime[i]} of one type), all
     * switched together: one decision from the flags of every site's reads.
     *
     * @param read         the reads; a null one: that site has no read
     * @param clockGettime the clock_gettime stubs, or null (or any null): the read serves for good
     * @param mode         a 4-byte segment over a clock_mode the reads depend on (null with {@code clockGettime})
     * @param modesRead    the clock_modes the read serves, bit m for mode m
     * @param watchMillis  how often the watcher looks at clock_mode
     */
    ReadEntry(MethodHandle[] read, MethodHandle[] clockGettime, MemorySegment mode, int modesRead,
            long watchMillis) {
        this.sites = new MutableCallSite[read.length];
        this.invokers = new MethodHandle[read.length];
        this.watchMillis = watchMillis;
        for (int i = 0; i < read.length; i++) {
            sites[i] = read[i] == null ? null : new MutableCallSite(read[i]);
            invokers[i] = sites[i] == null ? null : sites[i].dynamicInvoker();
        }
        entries(read, clockGettime, mode, modesRead);
    }

    private void entries(MethodHandle[] read, MethodHandle[] clockGettime, MemorySegment mode, int modesRead) {
        this.read = read.clone();
        boolean switching = clockGettime != null && mode != null && !Arrays.asList(clockGettime).contains(null);
        this.clockGettime = switching ? clockGettime.clone() : null;
        this.mode = switching ? mode : null;
        this.modesRead = modesRead;
    }

    /** {@return site {@code i}'s handle to call: its serving target, as a call-site invoker (keep it in a static final)} */
    MethodHandle invoker(int i) {
        return invokers[i];
    }

    /** Site 0's read itself: for reads that must not switch (the AUX clocks, which fall back by design). */
    MethodHandle read() {
        return read[0];
    }

    /** True while the clock_gettime stubs serve; for descriptions and tests. */
    synchronized boolean clockGettimeServes() {
        return clockGettimeServes;
    }

    /** How often the sites switched; for descriptions and tests. */
    synchronized int switches() {
        return switches;
    }

    /**
     * A flagged read's time ({@link VdsoStub#FALLBACK} where clock_gettime must still answer), counted toward a
     * switch to the clock_gettime stubs.
     *
     * @param flagged a read's value with bit 63 set
     * @return the time, or {@link VdsoStub#FALLBACK}
     */
    long flagged(long flagged) {
        if (clockGettime != null && ++flags >= FLAGS_TO_SWITCH) {
            toClockGettime();
        }
        return unflagged(flagged);
    }

    /**
     * A flagged read's time without counting it: the flag stripped, a flagged 0 (which {@link VdsoStub#FALLBACK}
     * is, and a failed clock_gettime stub's value) kept as {@link VdsoStub#FALLBACK}, where clock_gettime must
     * still answer (and report its error).
     *
     * @param flagged a read's value with bit 63 set
     * @return the time, or {@link VdsoStub#FALLBACK}
     */
    static long unflagged(long flagged) {
        long nanos = flagged & Long.MAX_VALUE;
        return nanos == 0 ? VdsoStub.FALLBACK : nanos;
    }

    /** Whether {@code clockMode} is one the read serves. */
    static boolean reads(int modesRead, int clockMode) {
        return clockMode >= 0 && clockMode < 32 && ((modesRead >>> clockMode) & 1) != 0;
    }

    /**
     * Serves another generation's entries (a re-discovery): its reads at once, the counts and the switches started
     * afresh, a running watcher ended. The sites and their types stay; a site without a read stays without one.
     *
     * @param read         the new reads, one per site, of the old ones' types
     * @param clockGettime the new clock_gettime stubs, or null (or any null): the reads serve for good
     * @param mode         the new generation's clock_mode segment (null with {@code clockGettime})
     * @param modesRead    the clock_modes its read serves
     */
    synchronized void retarget(MethodHandle[] read, MethodHandle[] clockGettime, MemorySegment mode, int modesRead) {
        entries(read, clockGettime, mode, modesRead);
        flags = 0;
        switches = 0;
        clockGettimeServes = false;
        generation++;
        setTargets(this.read);
        // Unlike a switch, a new generation's addresses replace the old ones: no thread may keep reading through
        // the previous generation's read once this returns.
        MutableCallSite.syncAll(Arrays.stream(sites).filter(java.util.Objects::nonNull)
                .toArray(MutableCallSite[]::new));
    }

    private synchronized void toClockGettime() {
        if (clockGettime == null || clockGettimeServes || flags < FLAGS_TO_SWITCH || switches >= MAX_SWITCHES) {
            return; // another thread switched meanwhile, or the bound is reached
        }
        flags = 0;
        switches++;
        clockGettimeServes = true;
        setTargets(clockGettime);
        if (switches < MAX_SWITCHES) { // the last switch (to the stubs: MAX_SWITCHES is odd) is for good
            Thread t = new Thread(new Watcher(generation), "timekeeping4j-clock-mode");
            t.setDaemon(true);
            watchers.incrementAndGet();
            t.start();
        }
    }

    /** Makes the read serve again, unless a re-discovery came in between; true when the watcher is done. */
    private synchronized boolean toRead(int watched) {
        if (generation != watched || !clockGettimeServes) {
            return true;
        }
        if (!reads(modesRead, mode.get(ValueLayout.JAVA_INT_UNALIGNED, 0))) {
            return false;
        }
        flags = 0;
        switches++;
        clockGettimeServes = false;
        setTargets(read);
        return true;
    }

    private void setTargets(MethodHandle[] targets) {
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] != null && targets[i] != null) {
                sites[i].setTarget(targets[i]);
            }
        }
    }

    /** While the stubs serve: clock_mode every {@link #watchMillis} ms, until the read serves it again. */
    private final class Watcher implements Runnable {
        private final int watched;

        Watcher(int watched) {
            this.watched = watched;
        }

        @Override
        public void run() {
            try {
                do {
                    Thread.sleep(watchMillis);
                } while (!toRead(watched));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the stubs keep serving: never wrong
            } finally {
                watchers.decrementAndGet();
            }
        }
    }
}
