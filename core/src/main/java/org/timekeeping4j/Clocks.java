package org.timekeeping4j;

import java.time.Clock;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.HardwareCounter;
import org.timekeeping4j.clocksource.KernelCounter;
import org.timekeeping4j.timekeeper.Timekeeper;
import org.timekeeping4j.tracking.KernelTracker;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.LinuxTime;

/**
 * Reads Linux clocks.
 *
 * <p><b>Paths.</b> {@code kernelNanos} calls clock_gettime through libc: the vDSO serves the high-resolution
 * and COARSE clocks in user space (about 29 ns and 10 ns here), the others enter the kernel.
 * {@code syscallNanos} always enters the kernel (syscall(2)), as the vDSO itself does when it cannot
 * trust the counter: the reference against which faster paths are verified.
 *
 * <p><b>Units.</b> Nanoseconds in a {@code long}: since the Unix epoch for REALTIME, TAI and their
 * variants (exact until 2262), since the clock's own origin (boot, process start, ...) for the others.
 *
 * <p><b>Allocation.</b> None of the read methods allocates: {@link #kernelNanos} uses a per-thread native
 * buffer, {@link #kernelTime} writes into the caller's {@link TimeSpec}.
 *
 * <p><b>Errors.</b> A clock this kernel or configuration lacks (an AUX clock not enabled, an alarm clock
 * without an RTC) throws {@link UnsupportedOperationException} saying why and what would enable it;
 * {@link #isSupported} answers the same question without throwing. Outside Linux on x86_64/aarch64
 * every method throws {@link UnsupportedOperationException} on first use.
 */
public final class Clocks {

    private Clocks() {}

    /**
     * The clock's current value in nanoseconds by the fastest correct path: the user-space timekeeper
     * over the CPU counter for REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI (and their ALARM
     * twins) where the counter can be trusted and the tracker is following the kernel; the kernel for
     * every other clock and whenever the fast path cannot be trusted. See {@link #source()}.
     *
     * <p>Guarantees: never goes backwards for MONOTONIC, MONOTONIC_RAW and BOOTTIME, including when the
     * path changes; within a few tens of ns of the kernel's value.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @throws IllegalArgumentException      if {@code timekeeping4j.counter} names no mode
     */
    public static long nanos(ClockId clock) {
        // Identity tests, not a switch: an enum switch loads a lookup table on the read's critical path.
        if (clock == ClockId.MONOTONIC) {
            return monotonicNanos();
        }
        if (clock == ClockId.REALTIME) {
            return realtimeNanos();
        }
        if (clock == ClockId.MONOTONIC_RAW || clock == ClockId.BOOTTIME || clock == ClockId.TAI) {
            return fastNanos(clock);
        }
        if (FastPath.CONFIG_ERROR != null) {
            throw FastPath.CONFIG_ERROR;
        }
        return kernelNanos(clock);
    }

    /**
     * A reader bound to one clock, for hot loops that should pay no dispatch on the clock id.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     */
    public static ClockReader clock(ClockId clock) {
        whyUnsupported(clock).ifPresent(why -> {
            throw new UnsupportedOperationException(why);
        });
        return switch (clock) {
            case MONOTONIC -> Clocks::monotonicNanos;
            case REALTIME -> Clocks::realtimeNanos;
            case MONOTONIC_RAW -> () -> fastNanos(ClockId.MONOTONIC_RAW);
            case BOOTTIME -> () -> fastNanos(ClockId.BOOTTIME);
            case TAI -> () -> fastNanos(ClockId.TAI);
            default -> () -> kernelNanos(clock);
        };
    }

    private static long monotonicNanos() {
        return pageNanos(FastPath.Pages.MONO_PAGE, FastPath.Pages.MONOTONIC, ClockId.MONOTONIC);
    }

    private static long realtimeNanos() {
        return pageNanos(FastPath.Pages.MONO_PAGE, FastPath.Pages.REALTIME, ClockId.REALTIME);
    }

    private static long fastNanos(ClockId clock) {
        return clock == ClockId.MONOTONIC_RAW
                ? pageNanos(FastPath.Pages.RAW_PAGE, FastPath.Pages.MONOTONIC_RAW, clock)
                : pageNanos(FastPath.Pages.MONO_PAGE,
                        clock == ClockId.BOOTTIME ? FastPath.Pages.BOOTTIME : FastPath.Pages.TAI, clock);
    }

    /**
     * {@code clock} through its record of a process page, else through the tracker's timekeeper. Pages.ENABLED
     * and the addresses are static finals: inlined, the JIT folds the test and passes constants.
     */
    private static long pageNanos(long page, long record, ClockId clock) {
        if (FastPath.Pages.ENABLED) {
            long v = FastPath.Pages.read(page, record);
            if (v != Timekeeper.STALE) {
                return v;
            }
        }
        return timekeeperNanos(clock);
    }

    /**
     * The tracker's timekeepers where the pages are disabled (a timekeeper reading in Java) or stale (a
     * pair not mirrored yet, or retired: then the timekeeper is stale or gone too, and the tracker serves).
     */
    private static long timekeeperNanos(ClockId clock) {
        Timekeeper tk = clock == ClockId.MONOTONIC_RAW ? FastPath.raw : FastPath.mono;
        if (tk != null) {
            long v = tk.readFresh(clock == ClockId.MONOTONIC_RAW ? ClockId.MONOTONIC : clock);
            if (v != Timekeeper.STALE) {
                return v;
            }
        }
        return slowNanos(clock);
    }

    /** Not tracking, or stale: the tracker serves from the kernel, never below its floors. */
    private static long slowNanos(ClockId clock) {
        KernelTracker t = FastPath.tracker();
        return t != null ? t.nanos(clock) : kernelNanos(clock);
    }

    /**
     * The cheapest timestamp there is: the CPU counter read without ordering (rdtsc, mrs cntvct_el0),
     * in counter cycles; clock_gettime(MONOTONIC_RAW) nanoseconds where no counter can be trusted.
     *
     * <p>Guarantees, honestly: within one thread, ticks never decrease (the TSC is invariant and
     * synchronised across cores here, checked by the selection's self-test). Unordered means the CPU may
     * execute the read before earlier loads complete: a tick taken after reading a value another thread
     * published may be smaller than a tick that thread took before publishing, by up to a few tens of
     * cycles. Use {@link #nanos} where cross-thread order matters. The first call waits for the counter
     * selection (a few hundred ms, once per process).
     */
    public static long ticks() {
        return FastPath.Ticks.SOURCE.read();
    }

    /**
     * Converts a {@link #ticks()} value from the last few seconds to what {@link #nanos} returned at that
     * counter value, through the fast path's parameter history: exact while the fast path is tracking.
     * On the kernel path ticks are MONOTONIC_RAW nanoseconds and are converted with the clocks' current
     * offsets (exact for MONOTONIC_RAW, within a bracket, tens of ns, for the others).
     */
    public static long ticksToNanos(long ticks, ClockId clock) {
        KernelTracker t = FastPath.tracker();
        Clocksource cs = FastPath.Ticks.SOURCE;
        if (t != null && cs instanceof HardwareCounter && cs.frequencyHz() == t.counter().frequencyHz()) {
            try {
                return t.convert(ticks, clock); // ticks and the tracker read the same counter
            } catch (IllegalStateException notTracking) {
                // fall through to the approximate conversion
            }
        }
        if (cs instanceof KernelCounter) {
            return clock == ClockId.MONOTONIC_RAW ? ticks
                    : ticks + kernelNanos(clock) - kernelNanos(ClockId.MONOTONIC_RAW);
        }
        // Hardware ticks without a tracker: scale by the calibrated frequency from now.
        long now = cs.read();
        long k = kernelNanos(clock);
        return k - Math.round((now - ticks) * 1e9 / cs.frequencyHz());
    }

    /**
     * Reads the counter, then fills {@code into} with {@code clock} and MONOTONIC_RAW at that counter value,
     * converted with the parameters in force there (the kernel's ktime_get_snapshot_id()).
     *
     * <p>The counter read is the very first thing this method does: no dispatch on the clock id, no state
     * cleared, nothing before it, because PPS and PTP capture depend on how close it comes to the
     * triggering event. Conversion happens afterwards, REALTIME first. Works for REALTIME, MONOTONIC,
     * MONOTONIC_RAW, BOOTTIME and TAI. On the kernel path (no trusted counter, tracker not converged or
     * starved) the snapshot says so: {@code counter() == 0}, {@code isFromCounter() == false}, and the two
     * values come from two clock_gettime calls.
     *
     * @return true (the snapshot is valid; kept boolean for the kernel's calling convention)
     * @throws IllegalArgumentException for a clock other than the five above
     */
    public static boolean snapshot(ClockId clock, Snapshot into) {
        long counter = FastPath.Ordered.SOURCE.read();
        KernelTracker t = FastPath.tracker();
        if (t != null && (clock == ClockId.REALTIME || snapshotCapable(clock))
                && t.snapshot(counter, clock, into.clockConversion, into.rawConversion)) {
            into.counter = counter;
            into.nanos = into.clockConversion.nanos();
            into.rawNanos = into.rawConversion.nanos();
            into.clockWasSetSeq = into.clockConversion.clockWasSetSeq();
            into.fromCounter = true;
            into.sourceChangedSeq = t.sourceChangedSeq();
        } else {
            if (!snapshotCapable(clock)) {
                throw new IllegalArgumentException("snapshots serve REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME "
                        + "and TAI, not " + clock);
            }
            into.counter = 0;
            into.nanos = kernelNanos(clock);
            into.rawNanos = kernelNanos(ClockId.MONOTONIC_RAW);
            into.clockWasSetSeq = 0;
            into.fromCounter = false;
            into.sourceChangedSeq = t != null ? t.sourceChangedSeq() : 0;
        }
        into.clock = clock;
        into.valid = true;
        return true;
    }

    private static boolean snapshotCapable(ClockId clock) {
        return clock == ClockId.REALTIME || clock == ClockId.MONOTONIC || clock == ClockId.MONOTONIC_RAW
                || clock == ClockId.BOOTTIME || clock == ClockId.TAI;
    }

    /**
     * Correlates two clocks: fills {@code into} with a value of each taken at the same instant, and the
     * uncertainty. Where both are served from the counter, one counter read converted twice: width 0.
     * Otherwise the narrowest of {@code samples} brackets (a, b, a): a is the midpoint, the width is the
     * bracket's, in {@code a}'s nanoseconds.
     */
    public static CrossTimestamp crossTimestamp(ClockId a, ClockId b, int samples, CrossTimestamp into) {
        into.a = a;
        into.b = b;
        KernelTracker t = FastPath.tracker();
        if (t != null && snapshotCapable(a) && snapshotCapable(b)) {
            long counter = FastPath.Ordered.SOURCE.read();
            if (t.snapshot(counter, a, into.first, into.second) && t.snapshot(counter, b, into.second, into.scratch)) {
                into.aNanos = into.first.nanos();
                into.bNanos = into.second.nanos();
                into.widthNanos = 0;
                into.fromCounter = true;
                return into;
            }
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < Math.max(1, samples); i++) {
            long a0 = nanos(a);
            long bv = nanos(b);
            long a1 = nanos(a);
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

    /**
     * Starts the fast path if it has not started, and waits until it serves the clocks from the counter. It
     * needs a few hundred ms after the first read to calibrate and converge; until then (and wherever it
     * cannot be trusted) reads are served by the kernel, correct but at the kernel's cost. For benchmarks and
     * latency-sensitive services that want the fast path before they begin.
     *
     * @return true once the counter serves the clocks; false at the timeout, or at once where no counter is
     *         trusted ({@link #source()} says why)
     */
    public static boolean awaitFastPath(java.time.Duration timeout) {
        nanos(ClockId.MONOTONIC); // starts the process-wide tracker
        long deadline = System.nanoTime() + timeout.toNanos();
        while (FastPath.mono == null) {
            if (System.nanoTime() - deadline > 0 || FastPath.hasGivenUp()) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
        }
        return true;
    }

    /** The counter calibration in use; {@code valid() == false} on the kernel path. */
    public static Calibration calibration() {
        KernelTracker t = FastPath.tracker();
        return t != null ? t.calibration()
                : new Calibration(false, 0, 0, 0, 0, 0, 0, 0, FastPath.notTrackingReason());
    }

    /** Which path serves each clock now, and why. */
    public static Map<ClockId, ClockSource> source() {
        KernelTracker t = FastPath.tracker();
        boolean tracking = t != null && t.isTracking();
        String why = tracking ? null : FastPath.notTrackingReason();
        Map<ClockId, ClockSource> m = new EnumMap<>(ClockId.class);
        for (ClockId c : ClockId.values()) {
            boolean fastCapable = c == ClockId.REALTIME || c == ClockId.MONOTONIC || c == ClockId.MONOTONIC_RAW
                    || c == ClockId.BOOTTIME || c == ClockId.TAI;
            if (fastCapable && tracking) {
                m.put(c, new ClockSource(c, ClockSource.Path.COUNTER, "user-space timekeeper over "
                        + t.counter() + ", tracking the kernel"));
            } else if (fastCapable) {
                m.put(c, new ClockSource(c, ClockSource.Path.KERNEL, "kernel clock_gettime: " + why));
            } else if (c == ClockId.REALTIME_COARSE || c == ClockId.MONOTONIC_COARSE) {
                m.put(c, new ClockSource(c, ClockSource.Path.KERNEL,
                        "kernel clock_gettime (vDSO): COARSE means the kernel's value at its last tick"));
            } else {
                m.put(c, new ClockSource(c, ClockSource.Path.KERNEL, isSupported(c)
                        ? "kernel clock_gettime: no counter-based equivalent"
                        : "unsupported: " + whyUnsupported(c).orElse("")));
            }
        }
        return m;
    }

    /**
     * The clock's current value in nanoseconds, through libc's clock_gettime (the vDSO where the kernel
     * serves this clock there).
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     */
    public static long kernelNanos(ClockId clock) {
        try {
            return LinuxTime.clockGettimeNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /** As {@link #kernelNanos(ClockId)}, for a clock behind an open file descriptor (a PTP device). */
    public static long kernelNanos(DynamicClockId clock) {
        try {
            return LinuxTime.clockGettimeNanos(clock.id());
        } catch (ErrnoException e) {
            throw dynamicFailed(clock, e);
        }
    }

    /**
     * The clock's current value in nanoseconds through the clock_gettime system call itself, bypassing
     * the vDSO (the forced-syscall path, about 10x slower).
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     */
    public static long syscallNanos(ClockId clock) {
        try {
            return LinuxTime.syscallClockGettimeNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * Fills {@code into} with the clock's current (seconds, nanoseconds) from clock_gettime, allocating
     * nothing.
     *
     * @return {@code into}, for chaining
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     */
    public static TimeSpec kernelTime(ClockId clock, TimeSpec into) {
        try {
            LinuxTime.clockGettime(clock.id(), into.segment());
            return into;
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /**
     * The clock's resolution as clock_getres(2) reports it: 1 ns for the high-resolution clocks, one
     * tick (e.g. 4 ms at HZ=250) for the COARSE ones.
     *
     * @throws UnsupportedOperationException if this kernel does not know the clock
     */
    public static long resolutionNanos(ClockId clock) {
        try {
            return LinuxTime.clockGetresNanos(clock.id());
        } catch (ErrnoException e) {
            throw unsupported(clock, e);
        }
    }

    /** clock_getres for a clock behind an open file descriptor. */
    public static long resolutionNanos(DynamicClockId clock) {
        try {
            return LinuxTime.clockGetresNanos(clock.id());
        } catch (ErrnoException e) {
            throw dynamicFailed(clock, e);
        }
    }

    /** Whether clock_gettime can read this clock now (false for disabled AUX clocks, alarm clocks without RTC). */
    public static boolean isSupported(ClockId clock) {
        return LinuxTime.clockGettimeErrno(clock.id()) == 0;
    }

    /** Why this clock cannot be read now, or empty where it can. */
    public static Optional<String> whyUnsupported(ClockId clock) {
        int errno = LinuxTime.clockGettimeErrno(clock.id());
        return errno == 0 ? Optional.empty() : Optional.of(reason(clock, errno));
    }

    /**
     * An {@link InstantSource} reading REALTIME or TAI through {@link #nanos} (the fast path where it serves). For TAI the instants are TAI
     * seconds since the TAI epoch, which java.time labels as UTC: they run ahead of REALTIME by the
     * kernel's TAI offset (see {@link SyncStatus#taiOffsetSeconds()}).
     *
     * @throws IllegalArgumentException for any clock other than REALTIME or TAI
     */
    public static InstantSource instantSource(ClockId clock) {
        return javaClock(clock, ZoneOffset.UTC);
    }

    /**
     * A {@link java.time.Clock} in {@code zone} reading REALTIME or TAI through {@link #nanos}.
     *
     * @throws IllegalArgumentException for any clock other than REALTIME or TAI
     */
    public static Clock javaClock(ClockId clock, ZoneId zone) {
        if (clock != ClockId.REALTIME && clock != ClockId.TAI) {
            throw new IllegalArgumentException(
                    "java.time views exist for REALTIME and TAI only; " + clock + " does not count from the epoch");
        }
        return new TimeJavaClock(clock, zone);
    }

    static String reason(ClockId clock, int errno) {
        String name = clock.kernelName();
        if (clock.isAux()) {
            int n = clock.id() - ClockId.AUX_BASE;
            return LinuxTime.clockGetresErrno(clock.id()) == 0
                    ? name + " is not enabled: write 1 to /sys/kernel/time/aux_clocks/" + n
                            + "/aux_clock_enable (needs CAP_SYS_TIME)"
                    : name + " does not exist in this kernel: AUX clocks need Linux 6.17+ with CONFIG_POSIX_AUX_CLOCKS"
                            + " (clock_gettime answers " + Errno.describe(errno) + ")";
        }
        if (clock == ClockId.REALTIME_ALARM || clock == ClockId.BOOTTIME_ALARM) {
            return name + " needs an alarm-capable RTC and this system registers none (clock_gettime answers "
                    + Errno.describe(errno) + ")";
        }
        return "the kernel refuses " + name + ": clock_gettime answers " + Errno.describe(errno);
    }

    private static UnsupportedOperationException unsupported(ClockId clock, ErrnoException e) {
        UnsupportedOperationException u = new UnsupportedOperationException(reason(clock, e.errno()));
        u.initCause(e);
        return u;
    }

    private static IllegalArgumentException dynamicFailed(DynamicClockId clock, ErrnoException e) {
        return new IllegalArgumentException("file descriptor " + clock.fd() + " is not an open clock device: "
                + Errno.describe(e.errno()), e);
    }
}
