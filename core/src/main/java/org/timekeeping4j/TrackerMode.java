package org.timekeeping4j;

import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.clocksource.SeqlockReader;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.machine.SeqlockPage;
import org.timekeeping4j.machine.SeqlockStub;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.tracking.KernelTracker;
import org.timekeeping4j.tracking.Publication;

/**
 * Tracker mode's process-wide state ({@link ServingMode#TRACKER}): the counter selection and the tracker,
 * started on first use, the publication it serves through and the process pages the reads go to; also the
 * configuration error every read reports, and the counters {@code Clocks.ticks()} and the snapshots read
 * outside exact mode.
 *
 * <p>The configuration is parsed at once (an unknown {@code timekeeping4j.counter} fails the first read
 * with a message listing the valid values); the selection and the tracker start on a background thread,
 * because calibration takes a few hundred milliseconds, and reads use the kernel until the tracker has
 * converged. {@code Clocks.ticks()} is the exception: a tick is a counter value, so the first call waits
 * for the selection.
 */
final class TrackerMode {

    /** Null, or the configuration error every read reports. */
    static final IllegalArgumentException CONFIG_ERROR = configError();

    // Written once by the starter thread (volatile store), read by the cold paths that ask for the tracker
    // (snapshots, conversions, reports: a volatile load, a plain load on x86 and an ldar on arm64). Null until
    // the tracker exists.
    private static volatile KernelTracker tracker;
    private static volatile String notTrackingReason = "starting";

    /**
     * Who serves the counter-backed clocks now: the tracker publishes into it, reads load its timekeepers
     * (a static final, so the JIT passes it as a constant: one volatile field load, as a static volatile's).
     * Nothing is published there until the tracker converges: reads go to the kernel.
     */
    static final Publication PUBLICATION = new Publication();

    static {
        switch (ServingMode.PROCESS) {
            case EXACT -> notTrackingReason = "exact mode serves the counter-backed clocks from the kernel's vDSO "
                    + "data: no tracker runs";
            case TRACKER -> Thread.ofPlatform().daemon().name("timekeeping4j-start").start(TrackerMode::start);
            case KERNEL -> notTrackingReason = CONFIG_ERROR != null ? CONFIG_ERROR.getMessage()
                    : "the kernel's clocks, as chosen (" + CounterSelector.PROPERTY + "=kernel)";
        }
    }

    private TrackerMode() {}

    /** A bad timekeeping4j.counter, timekeeping4j.execmem or timekeeping4j.vdso value, or null. */
    private static IllegalArgumentException configError() {
        return Configuration.PROCESS.error();
    }

    private static void start() {
        try {
            CounterSelection s = CounterSelector.selected();
            if (s.isHardware()) {
                if (Pages.ENABLED) {
                    PUBLICATION.mirrorInto(Pages.ADJUSTED, Pages.RAW); // before the updater starts: see Publication
                }
                tracker = KernelTracker.start(s.clocksource(), PUBLICATION);
            } else {
                notTrackingReason = "no trustworthy hardware counter: "
                        + (s.rejected().isEmpty() ? "none" : s.rejected().getFirst().toString());
            }
        } catch (RuntimeException | Error e) {
            notTrackingReason = "the fast path failed to start: " + e;
        }
    }

    /** The tracker, or null while the kernel serves every read. */
    static KernelTracker tracker() {
        checkConfiguration();
        return tracker;
    }

    /** Throws the configuration error every read reports, if there is one. */
    static void checkConfiguration() {
        if (CONFIG_ERROR != null) {
            throw CONFIG_ERROR;
        }
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
     * The process-wide timekeeper pages (the kernel's vvar page, in user space): the timekeepers {@link #PUBLICATION}
     * serves mirror their states into them, so a fast read passes constant addresses to the seqlock stub and
     * loads nothing before the counter read (a load it would wait for: the stub's ordered read waits for every
     * older load). Every record is stale until the tracker has converged, and again from the moment it retires a
     * pair, so a fresh read through them falls back exactly when a read through the timekeeper would. Disabled
     * (and never read) where {@link CounterSelector#processSeqlockReader()} finds no ordered TSC read with a stub.
     */
    static final class Pages {
        static final SeqlockReader READER = CONFIG_ERROR == null ? CounterSelector.processSeqlockReader() : null;
        static final boolean ENABLED = READER != null;
        static final SeqlockPage ADJUSTED = SeqlockPage.allocate(); // the adjusted timekeeper's records
        static final SeqlockPage RAW = SeqlockPage.allocate(); // the raw timekeeper's
        /** Every counter clock's slot, at its {@link CounterClock#record()} index. */
        static final Slot[] SLOTS = slots();
        static final Slot REALTIME = SLOTS[CounterClock.REALTIME.record()];
        static final Slot MONOTONIC = SLOTS[CounterClock.MONOTONIC.record()];
        static final Slot MONOTONIC_RAW = SLOTS[CounterClock.MONOTONIC_RAW.record()];
        static final Slot BOOTTIME = SLOTS[CounterClock.BOOTTIME.record()];
        static final Slot TAI = SLOTS[CounterClock.TAI.record()];

        private Pages() {}

        /**
         * A counter clock's record in the process pages. A record's fields are trusted finals: read from a static
         * final Slot, the page and record addresses are constants in compiled code.
         *
         * @param clock  the clock
         * @param page   the address of the page of the timekeeper serving it (the raw one for the raw line)
         * @param record the address of its line's record in that page
         */
        record Slot(CounterClock clock, long page, long record) {}

        private static Slot[] slots() {
            Slot[] slots = new Slot[CounterClock.values().length];
            for (CounterClock clock : CounterClock.values()) {
                SeqlockPage page = clock.raw() ? RAW : ADJUSTED;
                slots[clock.record()] = new Slot(clock, page.address(),
                        page.recordAddress(CounterClock.of(Publication.lineClock(clock)).record()));
            }
            return slots;
        }

        /** A fresh read of {@code slot}'s record, or STALE. */
        static long read(Slot slot) {
            return SeqlockStub.readPreferred(slot.page(), slot.record(), SeqlockStub.FRESH);
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
