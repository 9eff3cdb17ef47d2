package org.timekeeping4j.tracking;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The adjusted timekeeper's offsets from MONOTONIC, followed: REALTIME - MONOTONIC and BOOTTIME - MONOTONIC are
 * bounded by intersecting bracket intervals (they are constants between kernel events; a disjoint interval is a
 * kernel event) and centred inside their bounds the way the lines are centred (the kernel clock around one
 * counter read, minus the MONOTONIC line's own error); TAI - UTC is read. Adding a counter-served clock that is
 * an offset of MONOTONIC adds its measurement here. Updater thread only.
 */
final class OffsetFollower {

    private final TrackingPolicy.Environment kernel;
    private final Clocksource counter;
    private final long[] bounds = new long[2];
    private final Sample clockBracket = new Sample();
    private long realtimeLo;
    private long realtimeHi;
    private long boottimeLo;
    private long boottimeHi;
    private long lastSuspendNanos;

    OffsetFollower(TrackingPolicy.Environment kernel, Clocksource counter) {
        this.kernel = kernel;
        this.counter = counter;
    }

    /** Measures the offsets afresh for a new timekeeper, wide brackets allowed. */
    void anchor() {
        kernel.offsetBounds(ClockId.MONOTONIC, ClockId.REALTIME, 256, bounds);
        realtimeLo = bounds[0];
        realtimeHi = bounds[1];
        kernel.offsetBounds(ClockId.MONOTONIC, ClockId.BOOTTIME, 64, bounds);
        boottimeLo = bounds[0];
        boottimeHi = bounds[1];
    }

    /** {@return REALTIME - MONOTONIC to build a timekeeper with: the middle of the bounds} */
    long realtimeOffsetNanos() {
        return mid(realtimeLo, realtimeHi);
    }

    /**
     * {@return BOOTTIME - MONOTONIC to build a timekeeper with: the middle of the bounds} Negative too: in a time
     * namespace the two clocks carry offsets of their own, and BOOTTIME may read below MONOTONIC.
     */
    long boottimeOffsetNanos() {
        return mid(boottimeLo, boottimeHi);
    }

    /** {@return TAI - UTC in whole seconds, from the kernel's clocks} */
    int taiSeconds() {
        long real = kernel.nanos(ClockId.REALTIME);
        long tai = kernel.nanos(ClockId.TAI);
        return (int) Math.round((tai - real) / 1e9);
    }

    /**
     * Follows the offsets after an update of {@code tk}.
     *
     * @param converging         nobody reads {@code tk} yet: its offsets are refined freely
     * @param realtimeWasSet     the kernel said REALTIME was set
     * @param measureSlowOffsets measure TAI and BOOTTIME too (they change only with kernel events)
     * @param monoError          the MONOTONIC line's phase error just measured (kernel minus ours)
     * @return what changed
     */
    Result follow(Timekeeper tk, boolean converging, boolean realtimeWasSet, boolean measureSlowOffsets,
                  long monoError) {
        // Strict bounds on REALTIME - MONOTONIC (real read between two mono reads): they detect a kernel step that
        // the timerfd missed, but their midpoint is no good estimate: a mono/real/mono bracket is tens of ns wide
        // and the kernel's reads do not sit at its middle.
        kernel.offsetBounds(ClockId.MONOTONIC, ClockId.REALTIME, realtimeWasSet || converging ? 32 : 4, bounds);
        boolean disjoint = bounds[0] > realtimeHi || bounds[1] < realtimeLo;
        if (realtimeWasSet || disjoint) {
            realtimeLo = bounds[0];
            realtimeHi = bounds[1];
        } else {
            realtimeLo = Math.max(realtimeLo, bounds[0]);
            realtimeHi = Math.min(realtimeHi, bounds[1]);
        }
        long c = counter.read();
        long ours = tk.convert(c, ClockId.REALTIME) - tk.convert(c, ClockId.MONOTONIC);
        boolean outside = ours < realtimeLo || ours > realtimeHi;
        Result result = Result.FOLLOWED;
        if (converging || realtimeWasSet || outside) {
            // The offset's error is measured the way the lines' errors are (kernel REALTIME around one counter
            // read) minus the MONOTONIC line's own error: then REALTIME is centred in the kernel's brackets
            // exactly as MONOTONIC is. Before publication nobody reads these timekeepers, so the offset is refined
            // freely; afterwards it moves only on a kernel step.
            long offsetError = withinBounds(ours + offsetError(tk, ClockId.REALTIME, monoError), realtimeLo,
                    realtimeHi) - ours;
            if (Math.abs(offsetError) > (converging ? 1 : 0)) {
                tk.step(offsetError);
                result = Result.REALTIME_STEPPED;
            }
        }
        if (!converging && !realtimeWasSet && !measureSlowOffsets) {
            return result; // TAI and BOOTTIME offsets change only with kernel events
        }
        int tai = taiSeconds();
        if (tai != tk.taiOffsetSeconds()) {
            tk.setTaiOffsetSeconds(tai);
        }
        kernel.offsetBounds(ClockId.MONOTONIC, ClockId.BOOTTIME, converging ? 8 : 2, bounds);
        if (bounds[0] > boottimeHi + 1_000 || bounds[1] < boottimeLo - 1_000) {
            lastSuspendNanos = mid(bounds[0], bounds[1]) - mid(boottimeLo, boottimeHi);
            return Result.SUSPENDED;
        }
        boottimeLo = Math.max(boottimeLo, bounds[0]);
        boottimeHi = Math.min(boottimeHi, bounds[1]);
        if (converging) {
            // Centred as REALTIME is: kernel BOOTTIME around one counter read, minus the MONOTONIC line's own
            // error, within the strict bounds. Before publication only (nobody reads it yet); the build's first
            // estimate, the midpoint of brackets taken while this code still ran interpreted (hundreds of ns
            // wide), had put BOOTTIME tens of ns off the kernel's (docs/PERFORMANCE.md).
            long boot = tk.boottimeOffsetNanos();
            long want = withinBounds(boot + offsetError(tk, ClockId.BOOTTIME, monoError), boottimeLo, boottimeHi);
            if (want != boot) {
                tk.setBoottimeOffsetNanos(want);
            }
        }
        return result;
    }

    /** What {@link #follow} did. */
    enum Result {
        /** Offsets followed, REALTIME not stepped. */
        FOLLOWED,
        /** REALTIME (and TAI with it) stepped to the kernel's. */
        REALTIME_STEPPED,
        /** BOOTTIME - MONOTONIC moved: the machine was suspended ({@link #lastSuspendNanos} says by how much). */
        SUSPENDED
    }

    /** {@return how far BOOTTIME - MONOTONIC moved at the last {@link Result#SUSPENDED}, ns} */
    long lastSuspendNanos() {
        return lastSuspendNanos;
    }

    /**
     * How far {@code clock}'s offset from MONOTONIC is off, measured the way the lines' errors are: the kernel's
     * {@code clock} around one counter read, minus the MONOTONIC line's own error {@code monoError}.
     */
    private long offsetError(Timekeeper tk, ClockId clock, long monoError) {
        kernel.bracket(counter, clock, 32, clockBracket);
        return clockBracket.kernel - tk.convert(clockBracket.counter, clock) - monoError;
    }

    /**
     * {@code want}, or the middle of the strict bounds [lo, hi] when it lies outside them: the measurement
     * disagrees with the bounds, and the bounds are the stronger evidence (a clock read between two reads of the
     * other). REALTIME's and BOOTTIME's offsets are centred by this one rule.
     */
    private static long withinBounds(long want, long lo, long hi) {
        return want < lo || want > hi ? mid(lo, hi) : want;
    }

    static long mid(long lo, long hi) {
        return lo + (hi - lo) / 2;
    }
}
