package org.timekeeping4j.serving;

import java.time.Instant;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * One serving mode: how the clocks are read, and everything that follows from it (ticks and their conversion,
 * snapshots, cross timestamps, the diagnostics). One object per mode, chosen by a discovery and published once by
 * it ({@link FastPath}'s {@code backend}); every consumer asks that object, none switches on the mode.
 *
 * <ul>
 *   <li>{@link ExactBackend}: exact mode, the kernel's vDSO data read with the vDSO's arithmetic.</li>
 *   <li>{@link KernelBackend}: the kernel's clock_gettime through the kernel path's stubs (exact mode refused, was
 *       not asked for, or is being discovered again after a restore).</li>
 *   <li>{@link JdkBackend}: the JDK's clocks and libc's clock_gettime, where no stub can be mapped (native access
 *       denied, no executable memory, another platform). Before the first discovery publishes a backend the same
 *       reads serve from {@link FastPath}'s own methods: the first read loads no class of this hierarchy.</li>
 * </ul>
 *
 * <p>Why a sealed class and factories typed {@code Backend}: a process loads only the implementations it publishes
 * (the discovery code creates each through its own {@code create()}, so the verifier of that code loads none of
 * them). With one implementation loaded, the JIT finds the one target of a read's call in the class hierarchy and
 * inlines it with no type test (a dependency it drops, deoptimising once, should another load); after a
 * re-discovery two are loaded, and a read's call site is bimorphic: inlined behind one type test, never a
 * megamorphic call.
 */
abstract sealed class Backend permits ExactBackend, KernelBackend, JdkBackend {

    // The five counter-backed clocks, one method each, so that each read passes its own constants.

    abstract long monotonic();

    abstract long realtime();

    abstract long monotonicRaw();

    abstract long boottime();

    abstract long tai();

    /** Any clock but the five above: another counter-backed clock, an AUX clock, COARSE, CPU time, alarms. */
    abstract long nanos(ClockId clock);

    /** {@code clock} with the counter read unordered where this mode reads the counter; else {@link #nanos}. */
    abstract long nanosUnordered(ClockId clock);

    /** The kernel's clock_gettime of {@code clock}, as this mode calls it (KernelClocks.nanos). */
    abstract long kernelNanos(ClockId clock);

    /** A tick: the counter read unordered, or MONOTONIC_RAW ns where ticks are not counter cycles. */
    abstract long ticks();

    /** Converts {@code ticks} (a {@link #ticks()} value of this process) to {@code clock} into {@code into}. */
    abstract void convert(long ticks, ClockId clock, TicksConverter into);

    /**
     * Fills {@code into} with {@code clock} (its {@code a}) and MONOTONIC_RAW (its {@code b}) at one instant: the
     * counter read first thing where this mode reads it; here, in the modes that do not, two clock_gettime calls.
     *
     * @throws IllegalArgumentException for a clock that is not counter-backed
     */
    void snapshot(ClockId clock, Capture into) {
        Capture.kernelSnapshot(clock, into);
    }

    /** Fills {@code into} from one counter read converted to both clocks; false where this mode cannot (here). */
    boolean crossFromCounter(ClockId a, ClockId b, Capture into) {
        return false;
    }

    /** {@return true where the counter serves the counter-backed clocks (exact mode); false here} */
    boolean servesFromCounter() {
        return false;
    }

    /** {@return every clock's path and why, for the diagnostics} */
    abstract List<Diagnostics.Serving> clocks(Instant since);

    /** {@return the kernel's vDSO data as this mode sees it, for the diagnostics} */
    abstract Diagnostics.VdsoData vdsoData();

    /** A counter-backed clock this mode reads from its descriptor (those without a method of their own above). */
    static boolean counterBacked(ClockId clock) {
        return CounterClock.of(clock) != null;
    }
}
