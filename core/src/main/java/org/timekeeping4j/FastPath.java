package org.timekeeping4j;

import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.clocksource.SeqlockReader;
import org.timekeeping4j.timekeeper.Timekeeper;
import org.timekeeping4j.timekeeper.VvarPage;
import org.timekeeping4j.tracking.KernelTracker;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * The process-wide fast path: the counter selection and the tracker, started on first use.
 *
 * <p>The counter mode is parsed at once (an unknown {@code timekeeping4j.counter} fails the first read
 * with a message listing the valid values); the selection and the tracker start on a background thread,
 * because calibration takes a few hundred milliseconds, and reads use the kernel until the tracker has
 * converged. {@link #ticks()} is the exception: a tick is a counter value, so the first call waits for
 * the selection.
 */
final class FastPath {

    /** Null, or the configuration error every read reports. */
    static final IllegalArgumentException CONFIG_ERROR = configError();

    // Written once by the starter thread (volatile store), read by every fast read (volatile load: a
    // plain load on x86 and an ldar on arm64). Null until the tracker exists.
    private static volatile KernelTracker tracker;
    private static volatile String notTrackingReason = "starting";

    // Mirrors of the tracker's published timekeepers (see KernelTracker.PublicationListener): a read loads
    // one of these (volatile: a plain load on x86, ldar on arm64; pairs with the updater's volatile store
    // after it published the timekeeper) and goes straight to the timekeeper. Null: ask the tracker,
    // which serves from the kernel with its floors.
    static volatile Timekeeper mono;
    static volatile Timekeeper raw;

    static {
        if (CONFIG_ERROR == null && KernelVdso.ENABLED) {
            notTrackingReason = "exact mode serves the counter-backed clocks from the kernel's vDSO data: "
                    + "no tracker runs";
        } else if (CONFIG_ERROR == null) {
            Thread.ofPlatform().daemon().name("timekeeping4j-start").start(FastPath::start);
        } else {
            notTrackingReason = CONFIG_ERROR.getMessage();
        }
    }

    private FastPath() {}

    /** A bad timekeeping4j.counter, timekeeping4j.execmem or timekeeping4j.vdso value, or null. */
    private static IllegalArgumentException configError() {
        IllegalArgumentException e = CounterSelector.configError();
        return e != null ? e : KernelVdso.configError();
    }

    private static void start() {
        try {
            CounterSelection s = CounterSelector.selected();
            if (s.isHardware()) {
                tracker = KernelTracker.start(s.clocksource(), FastPath::published);
            } else if (s.mode() == CounterSelector.Mode.KERNEL) {
                notTrackingReason = "the kernel's clocks, as chosen (" + CounterSelector.PROPERTY + "=kernel)";
            } else {
                notTrackingReason = "no trustworthy hardware counter: "
                        + (s.rejected().isEmpty() ? "none" : s.rejected().getFirst().toString());
            }
        } catch (RuntimeException | Error e) {
            notTrackingReason = "the fast path failed to start: " + e;
        }
    }

    /**
     * The tracker's publications (its updater thread): a converged pair starts mirroring into the process
     * pages before the mirrors of it are set; a (null, null) comes after the tracker's zero-validity update
     * of the pair it retires, which the pages received too, so they read stale from then on.
     */
    private static void published(Timekeeper m, Timekeeper r) {
        if (m != null) {
            if (Pages.ENABLED && m.hasVvarPage() && r.hasVvarPage()) {
                m.mirrorTo(Pages.MONO);
                r.mirrorTo(Pages.RAW);
            }
            raw = r;
            mono = m;
        } else {
            Timekeeper old = mono;
            Timekeeper oldRaw = raw;
            raw = null;
            mono = null;
            if (old != null) {
                old.stopMirroring();
                oldRaw.stopMirroring();
            }
        }
    }

    /** The tracker, or null while the kernel serves every read. */
    static KernelTracker tracker() {
        if (CONFIG_ERROR != null) {
            throw CONFIG_ERROR;
        }
        return tracker;
    }

    /** True when the fast path will not serve: bad configuration, no trusted counter, or a failed start. */
    static boolean hasGivenUp() {
        return CONFIG_ERROR != null || (tracker == null && !"starting".equals(notTrackingReason));
    }

    static String notTrackingReason() {
        KernelTracker t = tracker;
        return t != null ? t.status().reason() : notTrackingReason;
    }

    /**
     * The process-wide vvar pages (the kernel's vvar page, in user space): the tracker's timekeepers mirror
     * their states into them, so a fast read passes constant addresses to the seqlock stub and loads nothing
     * before the counter read (a load it would wait for: the stub's ordered read waits for every older load).
     * Every record is stale until the tracker has converged, and again from the moment it retires a pair, so
     * a fresh read through them falls back exactly when a read through the timekeeper would. Disabled (and
     * never read) where {@link CounterSelector#processSeqlockReader()} finds no ordered TSC read with a stub.
     */
    static final class Pages {
        static final SeqlockReader READER = CONFIG_ERROR == null ? CounterSelector.processSeqlockReader() : null;
        static final boolean ENABLED = READER != null;
        static final VvarPage MONO = VvarPage.allocate();
        static final VvarPage RAW = VvarPage.allocate();
        static final long MONO_PAGE = MONO.address();
        static final long RAW_PAGE = RAW.address();
        static final long REALTIME = MONO.recordAddress(ClockId.REALTIME);
        static final long MONOTONIC = MONO.recordAddress(ClockId.MONOTONIC);
        static final long BOOTTIME = MONO.recordAddress(ClockId.BOOTTIME);
        static final long TAI = MONO.recordAddress(ClockId.TAI);
        /** The raw timekeeper serves MONOTONIC_RAW as its MONOTONIC line. */
        static final long MONOTONIC_RAW = RAW.recordAddress(ClockId.MONOTONIC);

        private Pages() {}

        /** A fresh read of the record at {@code record} of the page at {@code page}, or STALE. */
        static long read(long page, long record) {
            return SeqlockReader.readPreferred(page, record, SeqlockReader.FRESH);
        }
    }

    /** The ordered counter snapshots read first: the selection's clocksource (the tracker reads the same). */
    static final class Ordered {
        static final Clocksource SOURCE = Ticks.selection().clocksource();
    }

    /** The counter {@link Clocks#ticks()} reads: the selection's cheapest (unordered) flavour. */
    static final class Ticks {
        static final Clocksource SOURCE = selection().ticks();

        static CounterSelection selection() {
            if (CONFIG_ERROR != null) {
                throw CONFIG_ERROR;
            }
            return CounterSelector.selected();
        }
    }
}
