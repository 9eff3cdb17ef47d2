package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.VdsoStub;

/**
 * Which entry of the completing exact-mode read serves a process: the counter-first one, which reads the counter
 * before it knows clock_mode (right for every mode the code reads: its counter read waits for no load), or the
 * mode-first one, which looks at clock_mode first and calls clock_gettime without reading the counter where the
 * mode is one the code does not read (clock_mode NONE under hpet or acpi_pm, Hyper-V's page before a Hyper-V guest
 * confirmed the reader, a vclock page not found backed). On such a clocksource the counter-first entry pays a
 * wasted counter read on top of clock_gettime's cost; the mode-first one pays clock_gettime's alone.
 *
 * <p>Each entry returns the time unflagged on the route it expects and flagged (bit 63 set) on the other one
 * (machine.VclockCode). The read passes an unflagged value straight through; a flagged one comes here, which
 * strips the flag and counts: {@value #FLAGS_TO_SWITCH} flags since the last switch make the other entry the
 * call site's target. The target lives in a {@link MutableCallSite} whose invoker the reader keeps in a static
 * final: the JIT inlines the current target and records the dependency, so a switch deoptimises the compiled
 * readers once and costs the hot path nothing while it holds. Every switch deoptimises, so switches are
 * bounded: after {@value #MAX_SWITCHES} the counter-first entry serves for good (exact where the mode is read,
 * a counter read wasted where it is not: never wrong, only slower).
 *
 * <p>Both entries give the same answers: the route only decides what a read costs. The counts are plain fields,
 * updated racily on purpose: a lost increment delays a switch by one read, and a switch is decided under this
 * object's lock, where the count is re-checked.
 */
final class ReadEntry {

    /** Flagged reads since the last switch that make the other entry serve. */
    static final int FLAGS_TO_SWITCH = 64;
    /** Switches after which the counter-first entry serves for good (each deoptimises the readers). */
    static final int MAX_SWITCHES = 64;

    /**
     * Per site: the counter-first entry, the mode-first one (null: no switching), the call site, its invoker. The
     * entries change only in {@link #retarget}, under this object's lock; {@link #flagged} reads modeFirst racily
     * (a stale array costs at most one count), and the switch re-reads it under the lock.
     */
    private MethodHandle[] counterFirst;
    private MethodHandle[] modeFirst;
    private final MutableCallSite[] sites;
    private final MethodHandle[] invokers;
    /** Racy on purpose (see the class comment). */
    private int flags;
    private int switches;
    private boolean modeFirstServes;

    /**
     * One call site.
     *
     * @param counterFirst the counter-first entry (or the only one), or null: no read
     * @param modeFirst    the mode-first entry, or null: then the counter-first one serves for good
     */
    ReadEntry(MethodHandle counterFirst, MethodHandle modeFirst) {
        this(new MethodHandle[] {counterFirst}, new MethodHandle[] {modeFirst});
    }

    /**
     * One call site per pair (a clock's read: {@code counterFirst[i]} and {@code modeFirst[i]} of one type), all
     * switched together: one decision from the flags of every site's reads.
     *
     * @param counterFirst the counter-first entries; a null one: that site has no read
     * @param modeFirst    the mode-first entries; any null: the counter-first ones serve for good
     */
    ReadEntry(MethodHandle[] counterFirst, MethodHandle[] modeFirst) {
        this.counterFirst = counterFirst.clone();
        this.modeFirst = java.util.Arrays.asList(modeFirst).contains(null) ? null : modeFirst.clone();
        this.sites = new MutableCallSite[counterFirst.length];
        this.invokers = new MethodHandle[counterFirst.length];
        for (int i = 0; i < counterFirst.length; i++) {
            sites[i] = counterFirst[i] == null ? null : new MutableCallSite(counterFirst[i]);
            invokers[i] = sites[i] == null ? null : sites[i].dynamicInvoker();
        }
    }

    /** The handle to call: the serving entry, as a call-site invoker (keep it in a static final), or null. */
    MethodHandle invoker() {
        return invoker(0);
    }

    /** {@return site {@code i}'s handle to call, as {@link #invoker()}} */
    MethodHandle invoker(int i) {
        return invokers[i];
    }

    /** The counter-first entry itself (or the only one): for reads that must not switch the entry. */
    MethodHandle counterFirst() {
        return counterFirst[0];
    }

    /** True while the mode-first entry serves; for descriptions and tests. */
    synchronized boolean modeFirstServes() {
        return modeFirstServes;
    }

    /** How often the entry switched; for descriptions and tests. */
    synchronized int switches() {
        return switches;
    }

    /**
     * A flagged read's time ({@link VdsoStub#FALLBACK} where clock_gettime must still answer), counted toward a
     * switch of entry.
     *
     * @param flagged a read's value with bit 63 set
     * @return the time, or {@link VdsoStub#FALLBACK}
     */
    long flagged(long flagged) {
        if (modeFirst != null && ++flags >= FLAGS_TO_SWITCH) {
            switchEntry();
        }
        return unflagged(flagged);
    }

    /**
     * A flagged read's time without counting it: the flag stripped, a flagged 0 (which {@link VdsoStub#FALLBACK}
     * is) kept as {@link VdsoStub#FALLBACK}, where clock_gettime must still answer.
     *
     * @param flagged a read's value with bit 63 set
     * @return the time, or {@link VdsoStub#FALLBACK}
     */
    static long unflagged(long flagged) {
        long nanos = flagged & Long.MAX_VALUE;
        return nanos == 0 ? VdsoStub.FALLBACK : nanos;
    }

    /**
     * A mode-first entry composed in Java, for a read whose machine code has no clock_gettime call of its own
     * (x86_64 5.3-6.9, arm64), whose fallback returns {@link VdsoStub#FALLBACK} and so costs the caller a second
     * downcall: clock_mode loaded from {@code page} first; a mode in {@code modesRead} goes to {@code plain}, its
     * value flagged; any other to the kernel path's clock_gettime stub, unflagged. The load is a hint, as in the
     * machine code's mode-first entry: {@code plain} re-reads seq and clock_mode under the seqlock itself, and
     * clock_gettime is the kernel's answer, so a stale or torn mode only picks the route.
     *
     * @param plain     the read, {@code (vc, ts, clockId, vclock) -> ns or FALLBACK}
     * @param page      the vDSO data page the read's {@code vc} arguments point into
     * @param modesRead the clock_modes the read serves (bit m: mode m; {@link VdsoAlgorithm#modesRead})
     * @return the composed entry, of {@code plain}'s type
     */
    static MethodHandle modeFirstOver(MethodHandle plain, MemorySegment page, int modesRead) {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            MethodHandle reads = MethodHandles.insertArguments(lookup.findStatic(ReadEntry.class, "reads",
                    MethodType.methodType(boolean.class, MemorySegment.class, int.class, long.class)), 0, page,
                    modesRead);
            MethodHandle flag = lookup.findStatic(ReadEntry.class, "flag", MethodType.methodType(long.class, long.class));
            MethodHandle kernel = lookup.findStatic(ReadEntry.class, "kernel",
                    MethodType.methodType(long.class, long.class));
            MethodHandle test = MethodHandles.dropArguments(reads, 1, long.class, long.class, long.class);
            MethodHandle served = MethodHandles.filterReturnValue(plain, flag);
            MethodHandle other = MethodHandles.dropArguments(MethodHandles.dropArguments(kernel, 1, long.class), 0,
                    long.class, long.class);
            return MethodHandles.guardWithTest(test, served, other);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the clock_mode of the base at {@code vc} is one the read serves (a plain load: a hint). */
    private static boolean reads(MemorySegment page, int modesRead, long vc) {
        int mode = page.get(ValueLayout.JAVA_INT_UNALIGNED, vc - page.address() + VdsoLayout.CLOCK_MODE);
        return mode >= 0 && mode < 32 && ((modesRead >>> mode) & 1) != 0;
    }

    private static long flag(long nanos) {
        return nanos | Long.MIN_VALUE;
    }

    /** clock_gettime through the kernel path's stub; an error is {@link VdsoStub#FALLBACK} (the caller reports it). */
    private static long kernel(long clockId) {
        try {
            return ClockGettimeStub.clockGettimeNanos((int) clockId);
        } catch (ErrnoException e) {
            return VdsoStub.FALLBACK;
        }
    }

    /**
     * Serves another generation's entries (a re-discovery): the counter-first ones at once, the counts and the
     * switches started afresh. The sites and their types stay; a site without a read stays without one.
     *
     * @param counterFirst the new counter-first entries, one per site, of the old ones' types
     * @param modeFirst    the new mode-first entries; any null: the counter-first ones serve for good
     */
    synchronized void retarget(MethodHandle[] counterFirst, MethodHandle[] modeFirst) {
        this.counterFirst = counterFirst.clone();
        this.modeFirst = java.util.Arrays.asList(modeFirst).contains(null) ? null : modeFirst.clone();
        flags = 0;
        switches = 0;
        modeFirstServes = false;
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] != null && counterFirst[i] != null) {
                sites[i].setTarget(counterFirst[i]);
            }
        }
        MutableCallSite.syncAll(java.util.Arrays.stream(sites).filter(java.util.Objects::nonNull)
                .toArray(MutableCallSite[]::new));
    }

    private synchronized void switchEntry() {
        if (modeFirst == null || flags < FLAGS_TO_SWITCH || switches >= MAX_SWITCHES) {
            return; // another thread switched meanwhile, or the bound is reached
        }
        flags = 0;
        switches++;
        modeFirstServes = !modeFirstServes && switches < MAX_SWITCHES; // the last switch is to counter-first
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] != null) {
                sites[i].setTarget(modeFirstServes ? modeFirst[i] : counterFirst[i]);
            }
        }
    }
}
