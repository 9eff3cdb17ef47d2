package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.clocksource.MultShift;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.Seqcount;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Exact mode: the counter-served clocks read from the kernel's own vDSO time data with the vDSO's own
 * arithmetic, so that a read equals what clock_gettime returns for the same counter value, bit for bit, and
 * follows every kernel update (NTP/PTP frequency, slews, steps, leap seconds) at the kernel's next update.
 * No calibration, no updater thread: the kernel is the updater.
 *
 * <p>The process-wide state is decided once, when this class initialises (about a millisecond: one read of
 * /proc/self/maps, the layout recognised on page 0, the machine code mapped, and every served clock checked
 * against brackets of clock_gettime reads); see {@link Discovery}. Every address and the read's method handle
 * are static finals, so a JIT-compiled read passes constants to one inlined downcall.
 *
 * <p>Per read, the machine code checks seq and clock_mode as the vDSO does and reads the counter the mode
 * names: the TSC, or kvm-clock's pvclock page over the TSC where discovery found that page backed (so a switch
 * tsc &lt;-&gt; kvm-clock at run time keeps exact mode); any other mode, an unstable pvclock or a seq stuck
 * odd makes that read return {@link VdsoStub#FALLBACK}, and the caller asks clock_gettime. In a time
 * namespace the addresses are those of the kernel's data page after the namespace's, and MONOTONIC,
 * MONOTONIC_RAW and BOOTTIME add the namespace's offsets (constants: a multi-threaded process cannot change
 * its time namespace).
 */
public final class KernelVdso {

    /** {@code timekeeping4j.vdso}: {@code auto} (exact mode wherever it validates) or {@code off}. */
    public static final String PROPERTY = Configuration.VDSO;

    /** The first discovery's generation: it decides {@link #ENABLED} and the shape of the read's call sites. */
    private static final Generation FIRST = new Generation(Discovery.run());
    /**
     * The generation serving now: {@link #FIRST} until a re-discovery ({@link #rediscover}) replaces it. Volatile:
     * the cold paths (conversions, descriptions, AUX and generic reads) load it once per use; the bound reads do
     * not load it at all (their call sites are retargeted instead).
     */
    private static volatile Generation now = FIRST;

    /** True when the first discovery found exact mode (a re-discovery may refuse it later: {@link #serving}). */
    public static final boolean ENABLED = FIRST.enabled();

    /** Discovery's read: the fallback value where the vDSO would fall back (see {@link #monotonicWithoutOwnFallback}). */
    private static final MethodHandle PLAIN = FIRST.state.read();
    /** MONOTONIC's base and basetime slot, as constants for {@link #monotonicWithoutOwnFallback}. */
    private static final long HRES = FIRST.state.base(VdsoLayout.CS_HRES_COARSE);
    private static final long TS_MONOTONIC = FIRST.state.timestamp(CounterClock.MONOTONIC);

    /**
     * The production read's call sites, built from {@link #FIRST}'s entries (see {@link Generation}): site 0 takes
     * the arguments (any counter clock); sites 1 to 5 are REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI with
     * theirs bound ({@link Generation#BOUND}, {@link #site}). A re-discovery retargets them.
     */
    private static final ReadEntry ENTRY = new ReadEntry(FIRST.read, FIRST.clockGettime, FIRST.mode,
            FIRST.modesRead, ReadEntry.WATCH_MILLIS);
    /** {@link #ENTRY}'s invokers: static finals, so the JIT inlines the serving entry's downcall. */
    private static final MethodHandle READ = ENTRY.invoker(0);
    private static final MethodHandle REALTIME_READ = ENTRY.invoker(site(CounterClock.REALTIME));
    private static final MethodHandle MONOTONIC_READ = ENTRY.invoker(site(CounterClock.MONOTONIC));
    private static final MethodHandle MONOTONIC_RAW_READ = ENTRY.invoker(site(CounterClock.MONOTONIC_RAW));
    private static final MethodHandle BOOTTIME_READ = ENTRY.invoker(site(CounterClock.BOOTTIME));
    private static final MethodHandle TAI_READ = ENTRY.invoker(site(CounterClock.TAI));
    /**
     * AUX clocks' read: the first generation's read, never switched (see {@link #aux}); it takes
     * the addresses as arguments, so it serves a later generation of the same kernel too.
     */
    private static final MethodHandle AUX_READ = ENTRY.read();

    /** Called (once per move) when a read found the kernel data moved under the process; see {@link #onMove}. */
    private static volatile Runnable moveListener;
    /** Set when a move was reported for {@link #now}; cleared by a re-discovery. */
    private static volatile boolean moveReported;

    private KernelVdso() {}

    /**
     * Whether exact mode serves CLOCK_AUX+{@code index} (readable by clock_gettime when this class initialised,
     * and inside its brackets then).
     *
     * @param index 0..7
     * @return true when {@link #aux} serves it
     */
    public static boolean servesAux(int index) {
        return ((now.auxMask >>> index) & 1) != 0;
    }

    /**
     * CLOCK_AUX+{@code index} through the kernel data (lib/vdso/gettimeofday.c do_aux), or
     * {@link VdsoStub#FALLBACK} (the clock was disabled since: clock_mode NONE). Only where {@link #servesAux}.
     *
     * @param index 0..7
     * @return ns, or {@link VdsoStub#FALLBACK}
     */
    public static long aux(int index) {
        Generation g = now;
        if (((g.auxMask >>> index) & 1) == 0) {
            return VdsoStub.FALLBACK;
        }
        long vc = g.auxBase + index * g.auxStride;
        // do_aux: no namespace offset. Not counted toward the entry's switch (a disabled AUX clock falls back
        // by design): a flagged value only loses its flag.
        long v = invoke(AUX_READ, vc, vc + g.auxTimestamp, ClockId.AUX_BASE + index, g.vclock);
        if (v >= 0) {
            return v;
        }
        checkMoved();
        return ReadEntry.unflagged(v);
    }

    /** Null when {@link #ENABLED}, else why exact mode does not serve (one line). */
    public static String reason() {
        return now.state.reason();
    }

    /** The discovery's outcome: layout, mapping, counter read, and the rejected candidates. */
    public static Discovery.Result state() {
        return now.state;
    }

    /** {@return true when the generation serving now is exact mode's (false after a re-discovery that refused)} */
    public static boolean serving() {
        return now.enabled();
    }

    /**
     * Registers what to call when a read finds the kernel data moved under the process (page 0 of [vvar] turned
     * into a time namespace's page: a checkpoint restored into a new namespace). Called at most once per
     * generation, on the reading thread: it must only start a re-discovery elsewhere, never run one.
     *
     * @param listener the callback
     */
    public static void onMove(Runnable listener) {
        moveListener = listener;
    }

    /**
     * Discovers again and, where exact mode validates, retargets the read's call sites to the new generation (a
     * switch of target: compiled readers deoptimise once). Where the first discovery refused exact mode there are
     * no call sites, and nothing changes.
     *
     * @return null when exact mode serves from the new generation, else why not (one line)
     */
    public static synchronized String rediscover() {
        Generation g = new Generation(Discovery.run());
        if (!ENABLED) {
            return "exact mode did not serve at start: " + FIRST.state.reason();
        }
        if (g.enabled()) {
            ENTRY.retarget(g.read, g.clockGettime, g.mode, g.modesRead);
        }
        now = g; // after the retarget: a reader that sees g finds its sites already on it
        moveReported = false;
        ParameterHistory h = history;
        if (h != null) { // kept for the data that moved away: kept again for the new one
            h.stop();
            history = null;
            keepHistory(h.historyNanos());
        }
        return g.state.reason();
    }

    /**
     * A flagged read's check for a move (two loads, only where a read fell back): page 0 of [vvar] is a time
     * namespace's page though the generation read none. Reports it once.
     */
    private static void checkMoved() {
        if (!moveReported && now.movedIntoNamespace()) {
            moveReported = true;
            Runnable l = moveListener;
            if (l != null) {
                l.run();
            }
        }
    }

    /**
     * The clock's value through the kernel data, or {@link VdsoStub#FALLBACK} when the vDSO itself would
     * fall back (then ask clock_gettime). Only where {@link #ENABLED}; {@code clock} one of {@link CounterClock}.
     */
    public static long read(CounterClock clock) {
        Generation g = now;
        int r = clock.record();
        int id = clock.clock().id();
        return offset(served(READ, ENTRY, g.base[r], g.timestamp[r], id, g.vclock), g.offsetNow(id));
    }

    // The bound reads: a time namespace's offset is added inside the site's target (Generation.withOffset).

    public static long realtime() {
        return served(REALTIME_READ, ENTRY);
    }

    public static long monotonic() {
        return served(MONOTONIC_READ, ENTRY);
    }

    public static long monotonicRaw() {
        return served(MONOTONIC_RAW_READ, ENTRY);
    }

    public static long boottime() {
        return served(BOOTTIME_READ, ENTRY);
    }

    public static long tai() {
        return served(TAI_READ, ENTRY);
    }

    /**
     * A read through {@code entry}'s invoker {@code read} (both static finals at every call site, so the JIT
     * inlines the serving entry): an unflagged value is the time; a flagged one goes to {@code entry}.
     */
    private static long served(MethodHandle read, ReadEntry entry, long vc, long ts, long clockId, long vclock) {
        long v = invoke(read, vc, ts, clockId, vclock);
        return v >= 0 ? v : flagged(entry, v);
    }

    /** A bound read through {@code entry}'s invoker {@code read} (both static finals), as the other served. */
    private static long served(MethodHandle read, ReadEntry entry) {
        long v = invoke(read);
        return v >= 0 ? v : flagged(entry, v);
    }

    /** A flagged read: checked for a move of the kernel data, then counted toward a switch of entry. */
    private static long flagged(ReadEntry entry, long v) {
        checkMoved();
        return entry.flagged(v);
    }

    /**
     * True while the kernel path's clock_gettime stubs serve the reads' call sites, their fallbacks having been the
     * rule (see {@link ReadEntry}); for descriptions and tests.
     */
    public static boolean clockGettimeServes() {
        return ENTRY.clockGettimeServes();
    }

    /** How often the reads' call sites switched between the read and clock_gettime; for descriptions and tests. */
    public static int entrySwitches() {
        return ENTRY.switches();
    }

    /**
     * MONOTONIC through discovery's read, which returns {@link VdsoStub#FALLBACK} where the vDSO would fall back
     * instead of calling clock_gettime itself: for comparing the two fallbacks (benchmarks), not for clock reads.
     *
     * @return ns, or {@link VdsoStub#FALLBACK}
     */
    public static long monotonicWithoutOwnFallback() {
        return offset(invoke(PLAIN, HRES, TS_MONOTONIC, 1, FIRST.vclock), FIRST.offsetNow(1));
    }

    /**
     * A read plus a time namespace's offset, the fallback value kept.
     */
    private static long offset(long v, long offset) {
        return offset == 0 || v == VdsoStub.FALLBACK ? v : v + offset;
    }

    /** What {@link #realtimeLead} returns where exact mode does not serve. */
    public static final long NO_LEAD = VdsoFormula.NO_LEAD;

    /**
     * REALTIME - MONOTONIC as this process reads them, exact, from the kernel's data and the time namespace's
     * offset: it changes where REALTIME is set (a step, a leap second) and where the process is restored into
     * another time namespace (MONOTONIC continues, REALTIME moved on while it lay frozen), never under a slew. A
     * few loads under the data's seq; no system call, no allocation.
     *
     * @return the lead in ns, or {@link #NO_LEAD} where exact mode does not serve
     */
    public static long realtimeLead() {
        Generation g = now;
        if (g.hres == null) {
            return NO_LEAD;
        }
        long lead = VdsoFormula.realtimeLead(g.hres, g.leadReal, g.leadShift);
        if (lead == NO_LEAD) {
            checkMoved(); // restored into a time namespace: the first to see it reports it (a re-discovery)
            return NO_LEAD;
        }
        return lead - g.offsetNow(ClockId.MONOTONIC.id());
    }

    /**
     * The time namespace's MONOTONIC offset now, from its page (two loads; 0 outside a namespace or where exact mode
     * does not serve): a restore into another namespace at the same addresses changes it without a re-discovery.
     */
    public static long monotonicOffsetNow() {
        Generation g = now;
        return g.offsetNow(ClockId.MONOTONIC.id());
    }

    /** What serves clock_mode PVCLOCK (kvm-clock) in this process, or why clock_gettime does. */
    public static String pvclock() {
        return now.state.vclock().pvclock();
    }

    /** What serves clock_mode HVCLOCK (Hyper-V) in this process, or why clock_gettime does. */
    public static String hvclock() {
        return now.state.vclock().hvclock();
    }

    /**
     * The counter behind the served clocks now: "TSC", "kvm-clock (pvclock)", ... from the data's clock_mode,
     * and whether exact mode reads it or clock_gettime answers; for descriptions, not for clock reads.
     */
    public static String vclockNow() {
        Fields f = fields(VdsoLayout.CS_HRES_COARSE);
        if (f == null) {
            return "unknown (exact mode does not serve)";
        }
        int switches = entrySwitches();
        String entry = switches == 0 ? "" : "; " + (clockGettimeServes() ? "clock_gettime serves the reads" : "the read serves")
                + " after " + switches + " switch" + (switches == 1 ? "" : "es") + " (fallbacks were the rule)";
        return modeNow(f.clockMode()) + entry;
    }

    private static String modeNow(int clockMode) {
        Discovery.Result state = now.state;
        return switch (clockMode) {
            case 1 -> state.layout().arch() == Arch.X86_64
                    ? "tsc: read by exact mode (on kvm-clock: " + state.vclock().pvclock() + ")"
                    : "the arch timer: read by exact mode";
            case 2 -> state.layout().arch() == Arch.X86_64
                    ? "kvm-clock (clock_mode PVCLOCK): " + (Discovery.servesVclock(state.vclock(), 2)
                            ? "read by exact mode from " + state.vclock().pvclock() : state.vclock().pvclock())
                    : "the arch timer (ARCHTIMER_NOCOMPAT): read by exact mode";
            case 3 -> "Hyper-V TSC page (clock_mode HVCLOCK): " + state.vclock().hvclock();
            case 0 -> "none the vDSO reads (clock_mode NONE): clock_gettime serves";
            default -> "clock_mode " + clockMode + ": clock_gettime serves";
        };
    }

    /** The time namespace's offsets exact mode adds, or {@link Discovery.Timens} with inNamespace false. */
    public static Discovery.Timens timens() {
        Generation g = now;
        Discovery.Timens t = g.state.timens();
        return t.inNamespace() ? new Discovery.Timens(true, g.offsetNow(1), g.offsetNow(7)) : t;
    }

    /**
     * As {@link #read}, with the counter read unordered (rdtsc): the same kernel arithmetic, without the
     * wait for earlier loads. The reads of one thread never go backwards (the counter of one core only
     * grows, the kernel keeps every clock continuous across updates, and a counter value older than the
     * state's cycle_last reads as the value at cycle_last); across threads it promises no order: a read
     * taken after observing another thread's store may return less than a read that thread took before
     * the store, by up to the time an unordered counter read can run ahead (tens of ns).
     */
    public static long readUnordered(CounterClock clock) {
        Generation g = now;
        int r = clock.record();
        int id = clock.clock().id();
        return offset(served(Unordered.READ, Unordered.ENTRY, g.base[r], g.timestamp[r], id, g.vclock),
                g.offsetNow(id));
    }

    /** The unordered read's entries, mapped on first use (most processes never call it). */
    private static final class Unordered {
        static final ReadEntry ENTRY = new ReadEntry(new MethodHandle[] {!ENABLED ? null
                : VdsoStub.map(FIRST.state.layout().algorithm(), false).handle()}, null, null, 0, ReadEntry.WATCH_MILLIS);
        static final MethodHandle READ = ENTRY.invoker(0);
    }

    /** {@link #ENTRY}'s site of a {@link Generation#BOUND} clock: 1 + its place there (site 0 is the generic read). */
    private static int site(CounterClock clock) {
        return 1 + java.util.List.of(Generation.BOUND).indexOf(clock);
    }

    private static long invoke(MethodHandle handle) {
        try {
            return (long) handle.invokeExact();
        } catch (Throwable t) {
            throw org.timekeeping4j.linux.LinuxTime.rethrow(t);
        }
    }

    private static long invoke(MethodHandle handle, long vc, long ts, long clockId, long vclock) {
        try {
            return (long) handle.invokeExact(vc, ts, clockId, vclock);
        } catch (Throwable t) {
            throw org.timekeeping4j.linux.LinuxTime.rethrow(t);
        }
    }

    /**
     * Converts a counter value read earlier (an ordered or unordered read of the same counter) to
     * {@code clock} with the kernel's current parameters, into {@code into}: exact (what clock_gettime
     * returned, or would have returned, at that counter value) when the value lies in the current update
     * window (at or after cycle_last); otherwise extrapolated backwards along the current line and flagged
     * inexact: a frequency change in between is not seen. Allocates nothing.
     *
     * @return false when the data cannot serve now (clock_mode no longer the counter, seq stuck odd)
     */
    public static boolean convert(long counter, CounterClock clock, VdsoNanos into) {
        Generation g = now;
        Discovery.Result state = g.state;
        return state.page() != null && VdsoFormula.convert(state.layout(), state.page(),
                state.layout().baseOffset(VdsoLayout.base(clock)), clock.clock().id(), counter,
                g.pvti, g.offsetNow(clock.clock().id()), into);
    }

    /**
     * The data's seq count for {@code clock}'s base now: loaded before a counter read, it says whether the set a
     * later {@link #convert} of that value used ({@link VdsoNanos#seq}) was the one published at the read (the
     * same even count: no update came between). Odd while the kernel writes.
     */
    public static int seq(CounterClock clock) {
        Discovery.Result state = now.state;
        MemorySegment page = state.page();
        // Acquire (pairs with the kernel's vdso_write_end): the caller's counter read comes after it.
        return page == null ? 1 : Seqcount.begin(page, state.layout().baseOffset(VdsoLayout.base(clock)));
    }

    /**
     * The parameter history where one is kept ({@link #keepHistory}), else null. Volatile: stored after its first
     * look, so a converter that loads it finds a set in it (its ring is then read under its own lock).
     */
    private static volatile ParameterHistory history;

    /**
     * Keeps the kernel's parameter sets for {@code nanos} from now on ({@link ParameterHistory}: a sampler
     * thread), so that {@link #convertPast} converts counter values of that age exactly. Idempotent; does nothing
     * where exact mode does not serve.
     *
     * @param nanos how long to keep each set, ns; 0 keeps none
     * @return whether a history is kept now
     */
    public static synchronized boolean keepHistory(long nanos) {
        Generation g = now;
        ParameterHistory h = history;
        if (h != null && h.generation == g) {
            return true;
        }
        if (nanos <= 0 || !g.enabled() || g.state.page() == null) {
            return false;
        }
        h = new ParameterHistory(g, nanos);
        h.start();
        history = h; // volatile, after its first look: a converter that sees it finds a set in it
        return true;
    }

    /** {@return the history's line for the diagnostics, or null where none is kept} */
    public static String historyDescription() {
        ParameterHistory h = history;
        return h == null ? null : h.describe();
    }

    /**
     * Converts a counter value read earlier with the parameter set that served it, from the history
     * ({@link #keepHistory}): exact where the history shows which set was published at that counter value (or
     * both candidates agree), else flagged with its bound ({@link VdsoNanos#bound()}); older than the history,
     * extrapolated along the current line as {@link #convert} does, with the rate difference the history saw
     * times the age as the bound. Allocates nothing after its first use by {@code into}.
     *
     * @return false where no history is kept for the data serving now (then {@link #convert} extrapolates: nothing
     *         says which set served a past counter value, not even in the current update window)
     */
    public static boolean convertPast(long counter, CounterClock clock, VdsoNanos into) {
        ParameterHistory h = history;
        Generation g = now;
        if (h == null || h.generation != g) {
            return false;
        }
        if (into.current == null) {
            into.current = new long[ParameterSet.STRIDE]; // once per holder
        }
        if (!VdsoFormula.readSet(g.state.layout(), g.state.page(), g.pvti, into.current, 0)) {
            return false;
        }
        int r = h.convert(counter, clock, into.current, 0, into);
        if (r == ParameterHistory.UNKNOWN) {
            // After our look at the data (read meanwhile on another thread): look again, as its reader would have.
            if (!VdsoFormula.readSet(g.state.layout(), g.state.page(), g.pvti, into.current, 0)) {
                return false;
            }
            r = h.convert(counter, clock, into.current, 0, into);
        }
        if (r == ParameterHistory.UNKNOWN) {
            // Still after a look made after the call began: not a counter value read before it (another CPU's
            // unsynchronised counter, or a made-up value). The current line, and nothing bounds it.
            if (!convert(counter, clock, into)) {
                return false;
            }
            into.exact = false;
            into.bound = Long.MAX_VALUE;
            return true;
        }
        if (r == ParameterHistory.OLDER) {
            long bound = into.bound;
            if (!convert(counter, clock, into)) {
                return false;
            }
            into.exact = false;
            into.bound = bound;
            return true;
        }
        into.nanos += g.offsetNow(clock.clock().id());
        return true;
    }

    /** Reads one base's fields under its seq; for descriptions, not for clock reads. */
    public static Fields fields(int base) {
        Discovery.Result state = now.state;
        MemorySegment page = state.page();
        VdsoLayout l = state.layout();
        if (page == null) {
            return null;
        }
        VdsoFormula.BaseState s = new VdsoFormula.BaseState();
        if (!VdsoFormula.read(l, page, l.baseOffset(base), 0, s)) {
            return null;
        }
        return new Fields(Integer.toUnsignedLong(s.seq), s.mode, s.cycleLast, l.maxCyclesOffset() < 0 ? -1
                : s.maxCycles, s.mult, s.shift);
    }

    /** One base's fields, as read by {@link #fields}. */
    public record Fields(long seq, int clockMode, long cycleLast, long maxCycles, long mult, int shift) {
        /** The counter frequency these mult/shift stand for, in Hz: 2^shift * 10^9 / mult. */
        public double frequencyHz() {
            return MultShift.frequencyHz(mult, shift);
        }
    }

    /**
     * Ticks per second now, as the kernel's data states it: the raw line's counter frequency where the data counts
     * the counter itself (clock_mode TSC, the arm64 arch timer); under clock_mode PVCLOCK, where the data counts
     * kvm-clock's nanoseconds, that rate times the TSC ticks per kvm-clock nanosecond of the pvclock page. 0 where
     * the data does not convert the counter now. For descriptions, not for clock reads.
     */
    public static double ticksPerSecond() {
        Generation g = now;
        Fields raw = fields(VdsoLayout.CS_RAW);
        if (raw == null || raw.mult() == 0) {
            return 0;
        }
        if (g.state.layout().arch().vdsoCountsWith(raw.clockMode())) {
            return raw.frequencyHz();
        }
        if (raw.clockMode() == VclockCode.MODE_PVCLOCK && g.pvti != null
                && g.state.layout().algorithm() == VdsoAlgorithm.X86_OVERFLOW) {
            return raw.frequencyHz() * VdsoFormula.pvclockTicksPerNano(g.pvti);
        }
        return 0;
    }

    /**
     * What ticks count, for descriptions: "TSC cycles" on x86_64 (what the pvclock page scales too), the generic
     * timer's on arm64, or "none" where exact mode never served.
     */
    public static String ticksCounter() {
        Discovery.Result state = now.state;
        if (state.reason() != null) {
            return "none";
        }
        return state.layout().arch() == Arch.X86_64 ? "TSC cycles"
                : "generic timer cycles (cntvct_el0)";
    }

    /** The ordered flavour in use, for descriptions ("rdtscp"). */
    public static String counterRead() {
        Discovery.Result state = now.state;
        if (state.reason() != null) {
            return "none";
        }
        return state.layout().arch() == Arch.X86_64 ? VdsoStub.orderedFlavour().instructions()
                : org.timekeeping4j.arch.CounterRead.A64_ISB_CNTVCT.instructions();
    }


}
