package org.timekeeping4j;

import java.util.Arrays;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.tracking.Publication;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Snapshots and cross timestamps ({@link Clocks#snapshot}, {@link Clocks#crossTimestamp}): one counter read,
 * converted to several clocks afterwards, in exact mode with the kernel's parameters, in tracker mode through
 * the tracker's history, else from clock_gettime calls.
 */
final class Captures {

    private Captures() {}

    static boolean snapshot(ClockId clock, Snapshot into) {
        if (KernelVdso.ENABLED) {
            return exactSnapshot(clock, into);
        }
        long counter = FastPath.Ordered.SOURCE.read();
        Publication p = FastPath.PUBLICATION;
        if (p.snapshot(counter, clock, into.clockConversion, into.rawConversion)) {
            into.counter = counter;
            into.nanos = into.clockConversion.nanos();
            into.rawNanos = into.rawConversion.nanos();
            into.clockWasSetSeq = into.clockConversion.clockWasSetSeq();
            into.fromCounter = true;
            into.sourceChangedSeq = p.sourceChangedSeq();
            into.exact = false; // the tracker's estimate, not the kernel's parameters
        } else {
            if (!Clocks.isCounterBacked(clock)) {
                throw notSnapshotCapable(clock);
            }
            fromKernel(clock, into, p.sourceChangedSeq());
        }
        into.clock = clock;
        into.valid = true;
        return true;
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
            into.exact = into.exactClock.exact() && into.exactRaw.exact();
            into.clockWasSetSeq = 0;
            into.sourceChangedSeq = 0;
        } else {
            fromKernel(clock, into, 0);
        }
        into.clock = clock;
        into.valid = true;
        return true;
    }

    /** The kernel path: two clock_gettime reads, not one instant, and said so. */
    private static void fromKernel(ClockId clock, Snapshot into, long sourceChangedSeq) {
        into.counter = 0;
        into.nanos = Clocks.kernelNanos(clock);
        into.rawNanos = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
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
        if (KernelVdso.ENABLED && CounterClock.of(a) != null && CounterClock.of(b) != null) {
            long counter = VdsoStub.readCounterOrdered();
            if (KernelVdso.convert(counter, CounterClock.of(a), into.exactA)
                    && KernelVdso.convert(counter, CounterClock.of(b), into.exactB)) {
                into.aNanos = into.exactA.nanos();
                into.bNanos = into.exactB.nanos();
                into.widthNanos = 0;
                into.fromCounter = true;
                return into;
            }
        }
        if (!KernelVdso.ENABLED && FastPath.tracker() != null && Clocks.isCounterBacked(a)
                && Clocks.isCounterBacked(b)) {
            Publication p = FastPath.PUBLICATION;
            long counter = FastPath.Ordered.SOURCE.read();
            if (p.snapshot(counter, a, into.first, into.second) && p.snapshot(counter, b, into.second, into.scratch)) {
                into.aNanos = into.first.nanos();
                into.bNanos = into.second.nanos();
                into.widthNanos = 0;
                into.fromCounter = true;
                return into;
            }
        }
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
