package org.timekeeping4j;

import java.util.Arrays;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Snapshots and cross timestamps ({@link Clocks#snapshot}, {@link Clocks#crossTimestamp}): one counter read,
 * converted to several clocks afterwards, in exact mode with the kernel's parameters, else from clock_gettime
 * calls.
 */
final class Captures {

    private Captures() {}

    /** This process's mode, a static final: the identity tests below fold away in compiled code. */
    private static final ServingMode MODE = ServingMode.PROCESS;

    static boolean snapshot(ClockId clock, Snapshot into) {
        // Identity tests, not a switch: an enum switch loads a lookup table before the counter read.
        if (MODE == ServingMode.EXACT) {
            return exactSnapshot(clock, into);
        }
        return kernelSnapshot(clock, into);
    }

    /**
     * {@link #snapshot} in exact mode: the ordered counter read first, then both clocks converted at it with
     * the kernel's parameters (the vDSO's formula). Exact unless a kernel update came between the counter read
     * and the conversion (then extrapolated back along the new line, flagged).
     */
    private static boolean exactSnapshot(ClockId clock, Snapshot into) {
        long counter = VdsoStub.readCounterOrdered();
        CounterClock c = CounterClock.of(clock);
        if (c == null) {
            throw notSnapshotCapable(clock);
        }
        if (KernelVdso.convert(counter, c, into.exactClock) && KernelVdso.convert(counter, CounterClock.MONOTONIC_RAW,
                into.exactRaw)) {
            into.counter = counter;
            into.nanos = into.exactClock.nanos();
            into.rawNanos = into.exactRaw.nanos();
            into.fromCounter = true;
            into.exact = into.exactClock.exact() && into.exactRaw.exact()
                    && !org.timekeeping4j.disruption.Disruptions.before(counter); // a disruption since (VMClock)
            into.clockWasSetSeq = 0;
            into.sourceChangedSeq = 0;
        } else {
            fromKernel(clock, into, 0);
        }
        into.clock = clock;
        into.valid = true;
        return true;
    }

    /** {@link #snapshot} in kernel mode: the kernel's clocks, read one after the other. */
    private static boolean kernelSnapshot(ClockId clock, Snapshot into) {
        if (Configuration.PROCESS.error() != null) {
            throw Configuration.PROCESS.error(); // a configuration error is reported here, as by every read
        }
        if (!Clocks.isCounterBacked(clock)) {
            throw notSnapshotCapable(clock);
        }
        fromKernel(clock, into, 0);
        into.clock = clock;
        into.valid = true;
        return true;
    }

    /** The kernel path: two clock_gettime reads, not one instant, and said so. */
    private static void fromKernel(ClockId clock, Snapshot into, long sourceChangedSeq) {
        into.counter = 0;
        into.nanos = KernelClocks.nanos(clock);
        into.rawNanos = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
        into.clockWasSetSeq = 0;
        into.fromCounter = false;
        into.sourceChangedSeq = sourceChangedSeq;
        into.exact = false;
    }

    private static IllegalArgumentException notSnapshotCapable(ClockId clock) {
        return new IllegalArgumentException("snapshots serve the counter-backed clocks "
                + Arrays.toString(CounterClock.values()) + ", not " + clock);
    }

    static CrossTimestamp crossTimestamp(ClockId a, ClockId b, int samples, CrossTimestamp into) {
        into.a = a;
        into.b = b;
        boolean fromCounter = switch (ServingMode.PROCESS) {
            case EXACT -> exactCross(a, b, into);
            case KERNEL -> false;
        };
        return fromCounter ? into : sampledCross(a, b, samples, into);
    }

    /** Exact mode: one counter read converted to both clocks with the kernel's parameters, where both are its. */
    private static boolean exactCross(ClockId a, ClockId b, CrossTimestamp into) {
        if (CounterClock.of(a) == null || CounterClock.of(b) == null) {
            return false;
        }
        long counter = VdsoStub.readCounterOrdered();
        if (!KernelVdso.convert(counter, CounterClock.of(a), into.exactA)
                || !KernelVdso.convert(counter, CounterClock.of(b), into.exactB)) {
            return false;
        }
        into.aNanos = into.exactA.nanos();
        into.bNanos = into.exactB.nanos();
        into.widthNanos = 0;
        into.fromCounter = true;
        return true;
    }

    /** Any mode, where no counter read serves both: the narrowest of {@code samples} brackets (a, b, a). */
    private static CrossTimestamp sampledCross(ClockId a, ClockId b, int samples, CrossTimestamp into) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < Math.max(1, samples); i++) {
            long a0 = Clocks.nanos(a);
            long bv = Clocks.nanos(b);
            long a1 = Clocks.nanos(a);
            if (a1 - a0 >= 0 && a1 - a0 < best) {
                best = a1 - a0;
                into.aNanos = a0 + (a1 - a0) / 2;
                into.bNanos = bv;
            }
        }
        into.widthNanos = best;
        into.fromCounter = false;
        return into;
    }
}
