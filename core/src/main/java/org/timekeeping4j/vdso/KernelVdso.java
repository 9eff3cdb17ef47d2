package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.clocksource.MultShift;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.machine.Stubs;
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

    private static final Discovery.Result STATE = Discovery.run();

    /**
     * An unknown {@value #PROPERTY} value, as the error every read reports (exact mode then refuses, and the
     * kernel path throws it), or null.
     *
     * @return the error, or null
     */
    public static IllegalArgumentException configError() {
        String e = Configuration.PROCESS.vdsoError();
        return e == null ? null : new IllegalArgumentException(e);
    }

    /** True when exact mode serves the counter-backed clocks. */
    public static final boolean ENABLED = STATE.reason() == null;

    /** Discovery's read: the fallback value where the vDSO would fall back (see {@link #monotonicWithoutOwnFallback}). */
    private static final MethodHandle PLAIN = STATE.read();
    /** The read's vclock argument: the pvclock page and which vclock pages it may load from. */
    private static final long VCLOCK = STATE.vclock().word();
    /** The pvclock page for conversions in Java (snapshots, ticksToNanos), or null: made once, read allocation-free. */
    private static final MemorySegment PVTI = STATE.vclock().pvti();
    // A time namespace's offsets (0 outside one), added as do_hres_timens adds them.
    private static final long OFFS_MONOTONIC = STATE.timens().monotonic();
    private static final long OFFS_BOOTTIME = STATE.timens().boottime();
    /** Per {@link CounterClock#record()}: the time namespace's offset of the clock. */
    private static final long[] OFFSET = new long[CounterClock.values().length];
    /** MONOTONIC's base and basetime slot, as constants for {@link #monotonicWithoutOwnFallback}. */
    private static final long HRES = STATE.base(VdsoLayout.CS_HRES_COARSE);
    private static final long TS_MONOTONIC = STATE.timestamp(CounterClock.MONOTONIC);
    /** Per {@link CounterClock#record()}: the address of the clock's base and of its basetime slot. */
    private static final long[] BASE = new long[CounterClock.values().length];
    private static final long[] TIMESTAMP = new long[CounterClock.values().length];

    static {
        for (CounterClock c : CounterClock.values()) {
            BASE[c.record()] = STATE.base(VdsoLayout.base(c));
            TIMESTAMP[c.record()] = STATE.timestamp(c);
            OFFSET[c.record()] = STATE.timens().offset(c.clock().id());
        }
    }

    /** The clocks of {@link #ENTRY}'s sites 1 to 5, in order. */
    private static final CounterClock[] BOUND = {CounterClock.REALTIME, CounterClock.MONOTONIC,
        CounterClock.MONOTONIC_RAW, CounterClock.BOOTTIME, CounterClock.TAI};

    /**
     * The production read: as discovery's (which it validated), plus, outside a time namespace (where
     * clock_gettime's value would carry the offsets that the callers add), clock_gettime called from the code
     * where the vDSO would fall back, so that a fallback costs one downcall; and where fallbacks are the rule,
     * the mode-first entry, which calls clock_gettime without reading the counter first ({@link ReadEntry}).
     * Site 0 takes the arguments (any counter clock); sites 1 to 5 are REALTIME, MONOTONIC, MONOTONIC_RAW,
     * BOOTTIME and TAI with theirs bound ({@link #BOUND}, {@link #site}). Initialised after {@link #BASE} and
     * {@link #TIMESTAMP}, whose addresses it binds.
     */
    private static final ReadEntry ENTRY = entry(true, STATE.read());
    /** {@link #ENTRY}'s invokers: static finals, so the JIT inlines the serving entry's downcall. */
    private static final MethodHandle READ = ENTRY.invoker();
    private static final MethodHandle REALTIME_READ = ENTRY.invoker(site(CounterClock.REALTIME));
    private static final MethodHandle MONOTONIC_READ = ENTRY.invoker(site(CounterClock.MONOTONIC));
    private static final MethodHandle MONOTONIC_RAW_READ = ENTRY.invoker(site(CounterClock.MONOTONIC_RAW));
    private static final MethodHandle BOOTTIME_READ = ENTRY.invoker(site(CounterClock.BOOTTIME));
    private static final MethodHandle TAI_READ = ENTRY.invoker(site(CounterClock.TAI));
    /** AUX clocks' read: the counter-first entry, never switched (see {@link #aux}). */
    private static final MethodHandle AUX_READ = ENTRY.counterFirst();

    // AUX clocks (6.17+): bit i of AUX_MASK for CLOCK_AUX+i, each base AUX_STRIDE bytes after AUX_BASE, the
    // clock in its basetime[0]. Static finals: a read of a constant index folds to two constant addresses.
    private static final int AUX_MASK = Discovery.auxMask(STATE);
    private static final long AUX_BASE = AUX_MASK == 0 ? 0 : STATE.page().address() + STATE.layout().auxOffset();
    private static final long AUX_STRIDE = AUX_MASK == 0 ? 0 : STATE.layout().stride();
    private static final long AUX_TIMESTAMP = AUX_MASK == 0 ? 0 : STATE.layout().basetimeOffset();

    private KernelVdso() {}

    /**
     * Whether exact mode serves CLOCK_AUX+{@code index} (readable by clock_gettime when this class initialised,
     * and inside its brackets then).
     *
     * @param index 0..7
     * @return true when {@link #aux} serves it
     */
    public static boolean servesAux(int index) {
        return ((AUX_MASK >>> index) & 1) != 0;
    }

    /**
     * CLOCK_AUX+{@code index} through the kernel data (lib/vdso/gettimeofday.c do_aux), or
     * {@link VdsoStub#FALLBACK} (the clock was disabled since: clock_mode NONE). Only where {@link #servesAux}.
     *
     * @param index 0..7
     * @return ns, or {@link VdsoStub#FALLBACK}
     */
    public static long aux(int index) {
        long vc = AUX_BASE + index * AUX_STRIDE;
        // do_aux: no namespace offset. Not counted toward the entry's switch (a disabled AUX clock falls back
        // by design): a flagged value only loses its flag.
        long v = invoke(AUX_READ, vc, vc + AUX_TIMESTAMP, ClockId.AUX_BASE + index);
        return v >= 0 ? v : ReadEntry.unflagged(v);
    }

    /** Null when {@link #ENABLED}, else why exact mode does not serve (one line). */
    public static String reason() {
        return STATE.reason();
    }

    /** The discovery's outcome: layout, mapping, counter read, and the rejected candidates. */
    public static Discovery.Result state() {
        return STATE;
    }

    /**
     * The clock's value through the kernel data, or {@link VdsoStub#FALLBACK} when the vDSO itself would
     * fall back (then ask clock_gettime). Only where {@link #ENABLED}; {@code clock} one of {@link CounterClock}.
     */
    public static long read(CounterClock clock) {
        int r = clock.record();
        return offset(served(READ, ENTRY, BASE[r], TIMESTAMP[r], clock.clock().id()), OFFSET[r]);
    }

    public static long realtime() {
        return served(REALTIME_READ, ENTRY);
    }

    public static long monotonic() {
        return offset(served(MONOTONIC_READ, ENTRY), OFFS_MONOTONIC);
    }

    public static long monotonicRaw() {
        return offset(served(MONOTONIC_RAW_READ, ENTRY), OFFS_MONOTONIC);
    }

    public static long boottime() {
        return offset(served(BOOTTIME_READ, ENTRY), OFFS_BOOTTIME);
    }

    public static long tai() {
        return served(TAI_READ, ENTRY);
    }

    /**
     * A read through {@code entry}'s invoker {@code read} (both static finals at every call site, so the JIT
     * inlines the serving entry): an unflagged value is the time; a flagged one goes to {@code entry}.
     */
    private static long served(MethodHandle read, ReadEntry entry, long vc, long ts, long clockId) {
        long v = invoke(read, vc, ts, clockId);
        return v >= 0 ? v : entry.flagged(v);
    }

    /** A bound read through {@code entry}'s invoker {@code read} (both static finals), as the other served. */
    private static long served(MethodHandle read, ReadEntry entry) {
        long v = invoke(read);
        return v >= 0 ? v : entry.flagged(v);
    }

    /** True while the mode-first entry serves the ordered reads (see {@link ReadEntry}); for descriptions and tests. */
    public static boolean modeFirstServes() {
        return ENTRY.modeFirstServes();
    }

    /** How often the ordered reads' entry switched since start; for descriptions and tests. */
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
        return offset(invoke(PLAIN, HRES, TS_MONOTONIC, 1), OFFS_MONOTONIC);
    }

    /**
     * A read plus a time namespace's offset, the fallback value kept. Outside a namespace the offset is a
     * constant 0 and the JIT folds this to the read.
     */
    private static long offset(long v, long offset) {
        return offset == 0 || v == VdsoStub.FALLBACK ? v : v + offset;
    }

    /** What serves clock_mode PVCLOCK (kvm-clock) in this process, or why clock_gettime does. */
    public static String pvclock() {
        return STATE.vclock().pvclock();
    }

    /** What serves clock_mode HVCLOCK (Hyper-V) in this process, or why clock_gettime does. */
    public static String hvclock() {
        return STATE.vclock().hvclock();
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
        String entry = switches == 0 ? "" : "; reads enter " + (modeFirstServes() ? "mode first" : "counter first")
                + " after " + switches + " switch" + (switches == 1 ? "" : "es") + " of entry";
        return modeNow(f.clockMode()) + entry;
    }

    private static String modeNow(int clockMode) {
        return switch (clockMode) {
            case 1 -> STATE.layout().arch() == org.timekeeping4j.clocksource.CounterArch.X86_64
                    ? "tsc: read by exact mode (on kvm-clock: " + STATE.vclock().pvclock() + ")"
                    : "the arch timer: read by exact mode";
            case 2 -> STATE.layout().arch() == org.timekeeping4j.clocksource.CounterArch.X86_64
                    ? "kvm-clock (clock_mode PVCLOCK): " + (Discovery.servesVclock(STATE.vclock(), 2)
                            ? "read by exact mode from " + STATE.vclock().pvclock() : STATE.vclock().pvclock())
                    : "the arch timer (ARCHTIMER_NOCOMPAT): read by exact mode";
            case 3 -> "Hyper-V TSC page (clock_mode HVCLOCK): " + STATE.vclock().hvclock();
            case 0 -> "none the vDSO reads (clock_mode NONE): clock_gettime serves";
            default -> "clock_mode " + clockMode + ": clock_gettime serves";
        };
    }

    /** The time namespace's offsets exact mode adds, or {@link Discovery.Timens} with inNamespace false. */
    public static Discovery.Timens timens() {
        return STATE.timens();
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
        int r = clock.record();
        return offset(served(Unordered.READ, Unordered.ENTRY, BASE[r], TIMESTAMP[r], clock.clock().id()), OFFSET[r]);
    }

    /** The unordered read's entries, mapped on first use (most processes never call it). */
    private static final class Unordered {
        static final ReadEntry ENTRY = entry(false, !ENABLED ? null
                : VdsoStub.map(STATE.layout().algorithm(), false).handle());
        static final MethodHandle READ = ENTRY.invoker();
    }

    /**
     * The read's two entries (see {@link #READ} and {@link ReadEntry}): where the machine code completes its own
     * fallback (x86_64 6.10+), its counter-first and mode-first entries; where it does not (x86_64 5.3-6.9, arm64),
     * {@code plain} and a mode-first entry composed in Java over it; in a time namespace {@code plain} alone
     * (clock_gettime's value there carries the offsets the callers add, so no entry may answer with it). The
     * ordered read adds the {@link #BOUND} clocks' sites: the completing code mapped once per clock with its
     * arguments as immediates (a downcall without arguments costs less), elsewhere the same handles with the
     * arguments bound in Java.
     */
    private static ReadEntry entry(boolean ordered, MethodHandle plain) {
        MethodHandle[] counterFirst = new MethodHandle[ordered ? 1 + BOUND.length : 1];
        MethodHandle[] modeFirst = new MethodHandle[counterFirst.length];
        VdsoAlgorithm algorithm = ENABLED ? STATE.layout().algorithm() : null;
        counterFirst[0] = plain;
        boolean completing = false;
        if (ENABLED && plain != null && !STATE.timens().inNamespace()) {
            Stubs.Mapped cf = VdsoStub.completesFallback(algorithm) ? VdsoStub.map(algorithm, ordered, true) : null;
            completing = cf != null && cf.ok();
            if (completing) {
                Stubs.Mapped mf = VdsoStub.mapModeFirst(algorithm, ordered);
                counterFirst[0] = cf.handle();
                modeFirst[0] = mf.ok() ? mf.handle() : null;
            } else {
                modeFirst[0] = ReadEntry.modeFirstOver(plain, STATE.page(), algorithm.modesRead());
            }
        }
        for (int i = 1; i < counterFirst.length && counterFirst[0] != null; i++) {
            CounterClock c = BOUND[i - 1];
            long vc = BASE[c.record()];
            long ts = TIMESTAMP[c.record()];
            int id = c.clock().id();
            // The completing code's entries map bound; the plain read and the entry composed over it bind in Java.
            counterFirst[i] = bound(completing ? VdsoStub.mapBound(algorithm, ordered, false, vc, ts, id, VCLOCK) : null,
                    counterFirst[0], vc, ts, id);
            modeFirst[i] = modeFirst[0] == null ? null : bound(completing
                    ? VdsoStub.mapBound(algorithm, ordered, true, vc, ts, id, VCLOCK) : null, modeFirst[0], vc, ts, id);
        }
        return new ReadEntry(counterFirst, modeFirst);
    }

    /** {@link #ENTRY}'s site of a {@link #BOUND} clock: 1 + its place there (site 0 is the generic read). */
    private static int site(CounterClock clock) {
        return 1 + java.util.List.of(BOUND).indexOf(clock);
    }

    /** {@code mapped}'s handle where it mapped, else {@code generic} with the arguments bound in Java. */
    private static MethodHandle bound(Stubs.Mapped mapped, MethodHandle generic, long vc, long ts, int clockId) {
        return mapped != null && mapped.ok() ? mapped.handle()
                : java.lang.invoke.MethodHandles.insertArguments(generic, 0, vc, ts, (long) clockId, VCLOCK);
    }

    private static long invoke(MethodHandle handle) {
        try {
            return (long) handle.invokeExact();
        } catch (Throwable t) {
            throw org.timekeeping4j.linux.LinuxTime.rethrow(t);
        }
    }

    private static long invoke(MethodHandle handle, long vc, long ts, long clockId) {
        try {
            return (long) handle.invokeExact(vc, ts, clockId, VCLOCK);
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
        return STATE.page() != null && VdsoFormula.convert(STATE.layout(), STATE.page(),
                STATE.layout().baseOffset(VdsoLayout.base(clock)), clock.clock().id(), counter,
                PVTI, OFFSET[clock.record()], into);
    }

    /**
     * A counter value in a clock's nanoseconds by the kernel's vDSO data: the result of {@link #convert};
     * caller-owned, reusable.
     */
    public static final class VdsoNanos {
        long nanos;
        boolean exact;
        long cycleLast;
        int mult;
        int shift;

        /** The clock's nanoseconds at the counter value. */
        public long nanos() {
            return nanos;
        }

        /** True when the value lies in the kernel's current update window (no extrapolation). */
        public boolean exact() {
            return exact;
        }

        /** The kernel's cycle_last of the state used. */
        public long cycleLast() {
            return cycleLast;
        }

        /** The kernel's mult of the state used. */
        public int mult() {
            return mult;
        }

        /** The kernel's shift of the state used. */
        public int shift() {
            return shift;
        }
    }

    /** Reads one base's fields under its seq; for descriptions, not for clock reads. */
    public static Fields fields(int base) {
        MemorySegment page = STATE.page();
        VdsoLayout l = STATE.layout();
        if (page == null) {
            return null;
        }
        long b = l.baseOffset(base);
        for (int spins = 0; spins < 1 << 20; spins++) {
            int seq = (int) VdsoFormula.SEQ.getAcquire(page, b); // acquire: the field loads stay after it
            if ((seq & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            int mode = page.get(ValueLayout.JAVA_INT_UNALIGNED, b + VdsoLayout.CLOCK_MODE);
            long last = page.get(ValueLayout.JAVA_LONG_UNALIGNED, b + VdsoLayout.CYCLE_LAST);
            int mult = page.get(ValueLayout.JAVA_INT_UNALIGNED, b + l.multOffset());
            int shift = page.get(ValueLayout.JAVA_INT_UNALIGNED, b + l.shiftOffset());
            long maxCycles = l.maxCyclesOffset() < 0 ? -1
                    : page.get(ValueLayout.JAVA_LONG_UNALIGNED, b + l.maxCyclesOffset());
            VarHandle.loadLoadFence(); // the field loads complete before the seq re-load (vdso_read_retry)
            if ((int) VdsoFormula.SEQ.get(page, b) == seq) {
                return new Fields(Integer.toUnsignedLong(seq), mode, last, maxCycles, Integer.toUnsignedLong(mult),
                        shift);
            }
        }
        return null;
    }

    /** One base's fields, as read by {@link #fields}. */
    public record Fields(long seq, int clockMode, long cycleLast, long maxCycles, long mult, int shift) {
        /** The counter frequency these mult/shift stand for, in Hz: 2^shift * 10^9 / mult. */
        public double frequencyHz() {
            return MultShift.frequencyHz(mult, shift);
        }
    }

    /** The ordered flavour in use, for descriptions ("rdtscp"). */
    public static String counterRead() {
        if (!ENABLED) {
            return "none";
        }
        return STATE.layout().arch().vdsoOrderedRead();
    }


}
