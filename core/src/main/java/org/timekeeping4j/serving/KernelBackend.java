package org.timekeeping4j.serving;

import java.time.Instant;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * Kernel mode: clock_gettime for every clock, the vDSO's through the kernel path's stubs (MONOTONIC as the JDK reads
 * it: System.nanoTime is that call). Serves where exact mode refused, where the kernel's clocks were chosen
 * ({@code timekeeping4j.counter=kernel}), under a configuration error (every counter-backed read then reports it),
 * and while a re-discovery runs after a restore.
 *
 * <p>Ticks are what the first discovery decided they are, for the life of the process ({@link #ticksAreCycles}):
 * MONOTONIC_RAW nanoseconds where exact mode never served, the counter's cycles where it did (a re-discovery then
 * converts them with the parameters it finds).
 */
final class KernelBackend extends Backend {

    /**
     * Whether ticks are counter cycles: fixed by the first discovery, for every tick the process hands out. Final:
     * a reader that loads this backend from FastPath sees it set (package-private for stress's
     * serving.BackendPublicationTest, which checks that).
     */
    final boolean ticksAreCycles;

    private KernelBackend(boolean ticksAreCycles) {
        this.ticksAreCycles = ticksAreCycles;
    }

    /**
     * Typed {@code Backend}: see {@link Backend} (verifying the caller loads no implementation).
     *
     * @param ticksAreCycles true where exact mode served before (a re-discovery), false where it never did
     */
    static Backend create(boolean ticksAreCycles) {
        return new KernelBackend(ticksAreCycles);
    }

    @Override
    long monotonic() {
        return System.nanoTime();
    }

    @Override
    long realtime() {
        return counterClock(ClockId.REALTIME);
    }

    @Override
    long monotonicRaw() {
        return counterClock(ClockId.MONOTONIC_RAW);
    }

    @Override
    long boottime() {
        return counterClock(ClockId.BOOTTIME);
    }

    @Override
    long tai() {
        return counterClock(ClockId.TAI);
    }

    private static long counterClock(ClockId clock) {
        return KernelPath.mapped(clock);
    }


    @Override
    long nanos(ClockId clock) {
        return counterBacked(clock) ? counterClock(clock) : KernelPath.mapped(clock);
    }

    @Override
    long nanosUnordered(ClockId clock) {
        return FastPath.nanos(clock);
    }

    @Override
    long kernelNanos(ClockId clock) {
        return KernelPath.mapped(clock);
    }

    @Override
    long ticks() {
        return ticksAreCycles ? VdsoStub.readCounterUnordered() : KernelPath.mapped(ClockId.MONOTONIC_RAW);
    }

    @Override
    void convert(long ticks, ClockId clock, TicksConverter into) {
        if (ticksAreCycles) {
            FastPath.awaitSettled(); // a re-discovery runs: convert with the parameters it finds
            into.fromCycles(ticks, clock);
        } else {
            into.fromRawNanos(ticks, clock);
        }
    }

    @Override
    List<Diagnostics.Serving> clocks(Instant since) {
        return ServingReport.clocks(false, "kernel clock_gettime: " + reason(), since);
    }

    /** Why the kernel serves: the counter not read by choice, or exact mode's refusal (one line, its own words). */
    private static String reason() {
        if (Configuration.PROCESS.kernelChosen()) {
            return "the kernel's clocks, as chosen (" + Configuration.COUNTER + "=kernel)";
        }
        String refused = KernelVdso.reason(); // null while a re-discovery runs: the generation serving said yes
        return refused != null ? refused : FastPath.reason();
    }

    @Override
    Diagnostics.VdsoData vdsoData() {
        var st = KernelVdso.state();
        String layout = st.layout() == null ? null : st.layout().description();
        return ServingReport.none(reason(), layout, st.layout() == null ? "none"
                : "pvclock: " + KernelVdso.pvclock() + "; hvclock: " + KernelVdso.hvclock());
    }

}
