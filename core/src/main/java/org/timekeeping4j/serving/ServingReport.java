package org.timekeeping4j.serving;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.TaiCheck;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * The public {@link Diagnostics}, built here from the serving backend's own state: the backends fill the public
 * records themselves, so that no second set of types mirrors them. Built on the caller's thread, never on a read.
 */
public final class ServingReport {

    private ServingReport() {}

    /** What {@code Clocks.ticks()} returns now: the counter's cycles in exact mode, else MONOTONIC_RAW ns. */
    static Diagnostics.Ticks ticks() {
        if (!FastPath.countsCycles()) {
            return new Diagnostics.Ticks(false, "MONOTONIC_RAW nanoseconds", "clock_gettime(CLOCK_MONOTONIC_RAW)",
                    1e9);
        }
        String read = Arch.HERE.reads(false, Set.of(), 0).getFirst().instructions();
        return new Diagnostics.Ticks(true, KernelVdso.ticksCounter(), read, KernelVdso.ticksPerSecond());
    }

    /** The vDSO data where exact mode does not serve: why, and what was found. */
    static Diagnostics.VdsoData none(String why, String layout, String vclock) {
        return new Diagnostics.VdsoData(false, why, layout, "none", vclock, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /**
     * This process's diagnostics, now. Waits for a discovery that runs: the kernel's data and the ticks' meaning
     * are its outcome.
     *
     * @return the diagnostics
     * @throws UnsupportedOperationException on another platform
     * @throws IllegalArgumentException      under a configuration error
     */
    public static Diagnostics now() {
        FastPath.awaitSettled();
        Diagnostics.Stage stage = FastPath.stage();
        String why = FastPath.reason();
        long sinceNanos = FastPath.since();
        Instant since = Instant.now().minusNanos(System.nanoTime() - sinceNanos);
        Backend b = FastPath.current();
        // A re-discovery may have begun since the wait: the kernel's clocks serve meanwhile, and say so.
        List<Diagnostics.Serving> clocks = stage == Diagnostics.Stage.DISCOVERING
                ? clocks(false, "kernel clock_gettime while exact mode is discovered ("
                        + (System.nanoTime() - sinceNanos) / 1_000_000L + " ms so far): MONOTONIC and REALTIME as"
                        + " the JDK reads them, the others through libc", since)
                : b.clocks(since);
        Map<ClockId, Diagnostics.Serving> byClock = new EnumMap<>(ClockId.class);
        for (Diagnostics.Serving c : clocks) {
            byClock.put(c.clock(), c);
        }
        TaiCheck tai = tai();
        java.util.function.Supplier<String> bounds = boundsReport;
        return new Diagnostics(stage, why, since, byClock, ticks(), b.vdsoData(), tai.confirmed(), tai.line(),
                bounds == null ? "not in use: BoundedClock.system() has not been asked for in this process"
                        : bounds.get(), FastPath.historyLine());
    }

    /** What the process's bounded clock says about itself; set once, when it is made. */
    private static volatile java.util.function.Supplier<String> boundsReport; // volatile: set by another thread

    /**
     * Registers the line {@link Diagnostics#bounds()} shows: the device package's bounded clock gives it, the
     * root's diagnostics read it, neither importing the other.
     *
     * @param report the bounded clock's own line, called on the diagnostics' caller's thread
     */
    public static void reportBounds(java.util.function.Supplier<String> report) {
        boundsReport = report;
    }

    /**
     * CLOCK_TAI's offset now, against the leap-second list {@code timekeeping4j.leapSeconds} names (tzdata's by
     * default): the list's TAI-UTC now, whether the kernel's differs, and one line. Reads adjtimex and the list's
     * file afresh: a diagnostic, never a read's cost. A caller that holds the kernel's offset and a list compares
     * them with {@link TaiCheck#of}.
     *
     * @return the verdict
     */
    public static TaiCheck tai() {
        Configuration c = Configuration.PROCESS;
        return c.leapSecondsError() != null ? TaiCheck.now(c.leapSecondsError())
                : TaiCheck.now(Path.of(c.leapSeconds()));
    }

    /** Every clock's path: {@code counter} and {@code why} for the counter-backed ones, the kernel for the rest. */
    static List<Diagnostics.Serving> clocks(boolean counter, String why, Instant since) {
        List<Diagnostics.Serving> m = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            if (CounterClock.of(c) != null) {
                m.add(new Diagnostics.Serving(c, counter, why, since));
            } else if (c.isAux() && counter && KernelVdso.servesAux(c.id() - ClockId.AUX_BASE)) {
                m.add(new Diagnostics.Serving(c, true, "exact: the kernel's AUX clock data with the vDSO's"
                        + " arithmetic (do_aux), equal to clock_gettime", since));
            } else if (c == ClockId.REALTIME_COARSE || c == ClockId.MONOTONIC_COARSE) {
                m.add(new Diagnostics.Serving(c, false,
                        "kernel clock_gettime (vDSO): COARSE means the kernel's value at its last tick", since));
            } else {
                int errno = LinuxTime.clockGettimeErrno(c.id());
                m.add(new Diagnostics.Serving(c, false, errno == 0 ? "kernel clock_gettime: no counter-based"
                        + " equivalent" : "unsupported: " + KernelPath.reason(c, errno), since));
            }
        }
        return m;
    }
}
