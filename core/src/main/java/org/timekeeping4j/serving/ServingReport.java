package org.timekeeping4j.serving;

import java.util.ArrayList;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * What serves the clocks and with which parameters, as the serving backend describes itself: the data behind the
 * public Diagnostics record (which copies it into its own types). Built on the caller's thread, never on a read.
 *
 * @param stage                 what serves now
 * @param why                   why this stage (one line)
 * @param sinceNanos            System.nanoTime when this stage began
 * @param clocks                every clock's path, with its reason, in the clocks' order
 * @param ticks                 what ticks are and what reads them
 * @param kernel                the kernel's vDSO data as the backend sees it
 */
public record ServingReport(FastPath.Stage stage, String why, long sinceNanos, List<Clock> clocks,
                            Ticks ticks, Kernel kernel) {

    /**
     * What {@code Clocks.ticks()} returns: the components of the public Diagnostics.Ticks, which documents each.
     *
     * @param counterCycles true where ticks are counter cycles (the first discovery decided)
     * @param counter       what ticks count
     * @param read          what reads them
     * @param frequencyHz   ticks per second now, or 0 where the kernel's data does not state it now
     */
    public record Ticks(boolean counterCycles, String counter, String read, double frequencyHz) {

        /** Ticks as this process hands them out now. */
        static Ticks now() {
            if (!FastPath.countsCycles()) {
                return new Ticks(false, "MONOTONIC_RAW nanoseconds", "clock_gettime(CLOCK_MONOTONIC_RAW)", 1e9);
            }
            org.timekeeping4j.arch.Arch arch = org.timekeeping4j.arch.Arch.HERE;
            String read = arch.reads(false, java.util.Set.of(), 0).getFirst().instructions();
            return new Ticks(true, KernelVdso.ticksCounter(), read, KernelVdso.ticksPerSecond());
        }
    }

    /**
     * One clock's path.
     *
     * @param clock   the clock
     * @param counter true where a counter read serves it (exact mode), false for clock_gettime
     * @param why     one line
     */
    public record Clock(ClockId clock, boolean counter, String why) {}

    /**
     * The kernel's vDSO data: the components of the public Diagnostics.Kernel, which documents each.
     *
     * @param serves               true when exact mode serves
     * @param why                  null when it serves, else why not
     * @param layout               the recognised layout, or null
     * @param counterRead          the ordered counter read, or "none"
     * @param vclock               the counter behind the data now, or what was found of it
     * @param seq                  the data's sequence count when read
     * @param steeredMult          mult of the steered line
     * @param steeredShift         its shift
     * @param rawMult              mult of the raw line
     * @param rawShift             its shift
     * @param counterBase          cycle_last, or 0
     * @param rawBaseNanos         MONOTONIC_RAW at counterBase
     * @param validForNanos        how long after counterBase the raw line holds
     * @param monotonicOffsetNanos the time namespace's MONOTONIC offset
     * @param boottimeOffsetNanos  the time namespace's BOOTTIME offset
     */
    public record Kernel(boolean serves, String why, String layout, String counterRead, String vclock, long seq,
                         long steeredMult, int steeredShift, long rawMult, int rawShift, long counterBase,
                         long rawBaseNanos, long validForNanos, long monotonicOffsetNanos,
                         long boottimeOffsetNanos) {

        /** Exact mode does not serve: why, and what was found. */
        static Kernel none(String why, String layout, String vclock) {
            return new Kernel(false, why, layout, "none", vclock, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
    }

    /**
     * This process's report, now. Waits for a discovery that runs: the kernel's data and the ticks' meaning are its
     * outcome.
     *
     * @return the report
     * @throws UnsupportedOperationException on another platform
     * @throws IllegalArgumentException      under a configuration error
     */
    public static ServingReport now() {
        FastPath.awaitSettled();
        FastPath.Stage stage = FastPath.stage();
        String why = FastPath.reason();
        long since = FastPath.since();
        Backend b = FastPath.current();
        // A re-discovery may have begun since the wait: the kernel's clocks serve meanwhile, and say so.
        List<Clock> clocks = stage == FastPath.Stage.DISCOVERING
                ? clocks(false, "kernel clock_gettime while exact mode is discovered ("
                        + (System.nanoTime() - since) / 1_000_000L + " ms so far): MONOTONIC and REALTIME as the"
                        + " JDK reads them, the others through libc")
                : b.clocks();
        return new ServingReport(stage, why, since, clocks, Ticks.now(), b.kernel());
    }

    /** Every clock's path: {@code counter} and {@code why} for the counter-backed ones, the kernel for the rest. */
    static List<Clock> clocks(boolean counter, String why) {
        List<Clock> m = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            if (CounterClock.of(c) != null) {
                m.add(new Clock(c, counter, why));
            } else if (c.isAux() && counter && KernelVdso.servesAux(c.id() - ClockId.AUX_BASE)) {
                m.add(new Clock(c, true, "exact: the kernel's AUX clock data with the vDSO's arithmetic (do_aux),"
                        + " equal to clock_gettime"));
            } else if (c == ClockId.REALTIME_COARSE || c == ClockId.MONOTONIC_COARSE) {
                m.add(new Clock(c, false,
                        "kernel clock_gettime (vDSO): COARSE means the kernel's value at its last tick"));
            } else {
                int errno = LinuxTime.clockGettimeErrno(c.id());
                m.add(new Clock(c, false, errno == 0 ? "kernel clock_gettime: no counter-based equivalent"
                        : "unsupported: " + KernelPath.reason(c, errno)));
            }
        }
        return m;
    }
}
