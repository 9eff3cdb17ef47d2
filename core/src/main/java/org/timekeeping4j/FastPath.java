package org.timekeeping4j;

import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.timekeeper.Timekeeper;
import org.timekeeping4j.tracking.KernelTracker;

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
        if (CONFIG_ERROR == null) {
            Thread.ofPlatform().daemon().name("timekeeping4j-start").start(FastPath::start);
        } else {
            notTrackingReason = CONFIG_ERROR.getMessage();
        }
    }

    private FastPath() {}

    private static IllegalArgumentException configError() {
        try {
            CounterSelector.Mode.parse(System.getProperty(CounterSelector.PROPERTY, "auto"));
            return null;
        } catch (IllegalArgumentException e) {
            return e;
        }
    }

    private static void start() {
        try {
            CounterSelection s = CounterSelector.selected();
            if (s.isHardware()) {
                tracker = KernelTracker.start(s.clocksource(), (m, r) -> {
                    raw = r;
                    mono = m;
                });
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
