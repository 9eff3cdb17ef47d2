package org.timekeeping4j;

import java.time.Clock;
import java.time.ZoneId;
import java.util.Optional;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.serving.JavaTimeClock;
import org.timekeeping4j.serving.KernelPath;
import org.timekeeping4j.serving.ServingReport;
import org.timekeeping4j.serving.TicksConverter;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Reads Linux clocks: where to start. {@link #nanos} reads a clock by the fastest correct path, {@link #reader}
 * binds one for hot loops, {@link #ticks} and {@link #ticksToNanos} timestamp now and convert later. The kernel's
 * own paths (the vDSO's clock_gettime, the system call, clock_getres) are {@link KernelClocks}.
 *
 * <p><b>Units.</b> Nanoseconds in a {@code long}: since the Unix epoch for REALTIME, TAI and their
 * variants (exact until 2262), since the clock's own origin (boot, process start, ...) for the others.
 *
 * <p><b>Allocation.</b> None of the read methods allocates.
 *
 * <p><b>Errors.</b> A clock this kernel or configuration lacks (an AUX clock not enabled, an alarm clock
 * without an RTC) throws {@link UnsupportedOperationException} saying why and what would enable it;
 * {@link #whyUnsupported} answers the same question without throwing. Outside 64-bit Linux with the generic
 * ABI ({@code linux.Platform}: x86_64, aarch64, riscv64, loongarch64, s390x) every method throws
 * {@link UnsupportedOperationException} on first use; where no counter descriptor exists (every one of
 * those but x86_64 and aarch64) the kernel's clocks serve every read.
 */
public final class Clocks {

    private Clocks() {}

    /**
     * The clock's current value in nanoseconds by the fastest correct path. REALTIME, MONOTONIC,
     * MONOTONIC_RAW, BOOTTIME and TAI are read over the CPU counter in user space: in exact mode (the
     * default wherever the kernel's vDSO data validates) from the kernel's own parameters with the vDSO's
     * arithmetic, equal to clock_gettime bit for bit. Every other clock, every read exact mode cannot serve,
     * and every read where it refused goes to clock_gettime. See {@link #diagnostics()}.
     *
     * <p>Guarantees: never goes backwards for MONOTONIC, MONOTONIC_RAW and BOOTTIME, including when the
     * path changes; every path returns the kernel's value.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @throws IllegalArgumentException      if {@code timekeeping4j.counter} names no mode
     * @param clock the clock
     * @return the clock's value in ns
     */
    public static long nanos(ClockId clock) {
        return FastPath.nanos(clock);
    }

    /**
     * A reader bound to one clock, for hot loops that should pay no dispatch on the clock id.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @return a reader that allocates nothing per read
     */
    public static ClockReader reader(ClockId clock) {
        // Identity tests and a class per reader, each typed ClockReader where it is read: the first call loads
        // the one reader asked for, and verifying this class loads none (an enum switch loads a switch map, an
        // enum of readers all five at once: a cold JVM pays each class a few hundred microseconds). Classes, not
        // method references: a cold JVM's first lambda costs milliseconds.
        if (clock == ClockId.MONOTONIC) {
            return MonotonicReader.READER;
        }
        if (clock == ClockId.REALTIME) {
            return RealtimeReader.READER;
        }
        if (clock == ClockId.MONOTONIC_RAW) {
            return MonotonicRawReader.READER;
        }
        if (clock == ClockId.BOOTTIME) {
            return BoottimeReader.READER;
        }
        if (clock == ClockId.TAI) {
            return TaiReader.READER;
        }
        nanos(clock); // refuses here, saying why, where this kernel cannot read the clock now
        return AnyReader.of(clock);
    }

    // The readers clock() returns, one class each (see clock()).

    private static final class MonotonicReader implements ClockReader {
        static final ClockReader READER = new MonotonicReader();

        @Override
        public long nanos() {
            return FastPath.monotonic();
        }
    }

    private static final class RealtimeReader implements ClockReader {
        static final ClockReader READER = new RealtimeReader();

        @Override
        public long nanos() {
            return FastPath.realtime();
        }
    }

    private static final class MonotonicRawReader implements ClockReader {
        static final ClockReader READER = new MonotonicRawReader();

        @Override
        public long nanos() {
            return FastPath.monotonicRaw();
        }
    }

    private static final class BoottimeReader implements ClockReader {
        static final ClockReader READER = new BoottimeReader();

        @Override
        public long nanos() {
            return FastPath.boottime();
        }
    }

    private static final class TaiReader implements ClockReader {
        static final ClockReader READER = new TaiReader();

        @Override
        public long nanos() {
            return FastPath.tai();
        }
    }

    /** Any other clock, through {@link Clocks#nanos}. */
    private record AnyReader(ClockId clock) implements ClockReader {
        static ClockReader of(ClockId clock) {
            return new AnyReader(clock);
        }

        @Override
        public long nanos() {
            return Clocks.nanos(clock);
        }
    }

    /**
     * The cheapest timestamp there is: the CPU counter read without ordering (rdtsc, mrs cntvct_el0),
     * in counter cycles; clock_gettime(MONOTONIC_RAW) nanoseconds where no counter can be trusted.
     *
     * <p>Guarantees, honestly: within one thread, ticks never decrease: the counter is the one the kernel's
     * own clocks read (exact mode: the vDSO data's clock_mode says so), so it is synchronised across cores.
     * Unordered means the CPU may execute the read before earlier loads complete: a tick taken after reading a value another thread
     * published may be smaller than a tick that thread took before publishing, by up to a few tens of
     * cycles. Use {@link #nanos} where cross-thread order matters.
     *
     * <p>First call: in exact mode it maps the counter's stub (about a millisecond on an idle machine, after the
     * JVM's own FFM start-up). Where exact mode does not serve, ticks are clock_gettime(MONOTONIC_RAW) ns. What
     * ticks are in this process, what reads them and their rate: {@code diagnostics().ticks()}.
     * @return the counter value (cycles), or MONOTONIC_RAW ns where no counter is trusted
     */
    public static long ticks() {
        return FastPath.ticks();
    }

    /**
     * Like {@link #nanos}, with the counter read unordered (x86: rdtsc instead of rdtscp) in exact mode:
     * the kernel's arithmetic over the kernel's parameters, exact for the counter value it read, and cheaper.
     * The reads of one thread never go backwards. Across threads it promises no order: a read taken after
     * observing another thread's store may return less than a read that thread took before the store, by up
     * to how far the CPU lets an unordered counter read run ahead (tens of ns). Where exact mode does not
     * serve, this is {@link #nanos}.
     *
     * @throws UnsupportedOperationException if this kernel cannot read the clock now, saying why
     * @param clock the clock
     * @return the clock's value in ns
     */
    public static long nanosUnordered(ClockId clock) {
        return FastPath.nanosUnordered(clock);
    }

    /**
     * Converts a {@link #ticks()} value to what {@link #nanos} returned at that counter value. Exact mode: with
     * the kernel's parameter set that served it, from the parameter history (kept from the first conversion or
     * {@link EventRecorder} on), exact where the history shows which set that was, else flagged with a bound;
     * older than the history, or with none kept ({@code timekeeping4j.history=0}), extrapolated along the current
     * line (off by the kernel's rate changes since; {@link #snapshotAt} says how exact). On the kernel path ticks are
     * MONOTONIC_RAW nanoseconds, converted with the clocks' current offsets (exact for MONOTONIC_RAW, within a bracket,
     * tens of ns, for the others). Clocks no counter read serves (COARSE, CPU time) go through MONOTONIC_RAW
     * and their current offset from it.
     *
     * @param ticks a value {@link #ticks()} returned in this process
     * @param clock the clock to convert to
     * @return the clock's nanoseconds at that counter value
     */
    public static long ticksToNanos(long ticks, ClockId clock) {
        FastPath.keepHistory(); // from the first conversion on, ticks convert exactly for the history's length
        TicksConverter c = TicksConversion.PER_THREAD.get();
        c.convert(ticks, clock);
        return c.nanos();
    }

    /**
     * Fills {@code into} as a snapshot at ticks read earlier: {@code clock} and MONOTONIC_RAW at that counter value,
     * converted now with the kernel's parameter set that served it where the parameter history holds it (kept for
     * {@code timekeeping4j.history} seconds, 60 by default, from the first {@link EventRecorder} or conversion on),
     * else along the current line; {@link Snapshot#isExtrapolated()} and {@link Snapshot#errorBoundNanos()} say
     * how exact. Allocates nothing after a thread's first call.
     *
     * @param ticks a value {@link #ticks()} returned in this process
     * @param clock a counter-backed clock ({@link #isCounterBacked}) or another, reached through MONOTONIC_RAW
     * @param into  the caller's snapshot, overwritten
     * @return {@code into}
     */
    public static Snapshot snapshotAt(long ticks, ClockId clock, Snapshot into) {
        FastPath.keepHistory();
        into.capture.fromTicks(ticks, clock, TicksConversion.PER_THREAD.get());
        into.clock = clock;
        into.valid = true;
        return into;
    }

    /** Per-thread conversion state for {@link #ticksToNanos} (allocated once per thread). */
    private static final class TicksConversion {
        /** The first read of a clock loads none of this. */
        static final ThreadLocal<TicksConverter> PER_THREAD = new ThreadLocal<>() {
            @Override
            protected TicksConverter initialValue() {
                return new TicksConverter();
            }
        };
    }

    /**
     * Reads the counter, then fills {@code into} with {@code clock} and MONOTONIC_RAW at that counter value,
     * converted with the parameters in force there (the kernel's ktime_get_snapshot_id()).
     *
     * <p>The counter read is the very first thing this method does: no dispatch on the clock id, no state
     * cleared, nothing before it, because PPS and PTP capture depend on how close it comes to the
     * triggering event. Conversion happens afterwards, REALTIME first. Works for REALTIME, MONOTONIC,
     * MONOTONIC_RAW, BOOTTIME and TAI. On the kernel path (exact mode refused) the snapshot says so:
     * {@code counter() == 0}, {@code isFromCounter() == false}, and the two values come from two clock_gettime
     * calls.
     *
     * @return {@code into}, filled
     * @throws IllegalArgumentException for a clock other than the five above
     * @param clock REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME or TAI
     * @param into  the snapshot to fill (reusable)
     */
    public static Snapshot snapshot(ClockId clock, Snapshot into) {
        FastPath.snapshot(clock, into.capture);
        into.clock = clock;
        into.valid = true;
        return into;
    }

    /**
     * Whether a counter read can serve {@code clock}: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI, the
     * clocks the kernel's vDSO computes from the counter. The others are read from the kernel (COARSE: its value
     * at the last tick; CPU-time and alarm clocks: the system call).
     *
     * @param clock any clock
     * @return true for the five counter-backed clocks
     */
    public static boolean isCounterBacked(ClockId clock) {
        return CounterClock.of(clock) != null;
    }

    /**
     * Correlates two clocks: fills {@code into} with a value of each taken at the same instant, and the
     * uncertainty. Where both are served from the counter, one counter read converted twice: width 0.
     * Otherwise the narrowest of {@code samples} brackets (a, b, a): a is the midpoint, the width is the
     * bracket's, in {@code a}'s nanoseconds.
     * @param a       the first clock
     * @param b       the second clock
     * @param samples brackets to try where no counter serves both (at least 1)
     * @param into    the holder to fill
     * @return {@code into}
     */
    public static CrossTimestamp crossTimestamp(ClockId a, ClockId b, int samples, CrossTimestamp into) {
        into.a = a;
        into.b = b;
        FastPath.crossTimestamp(a, b, samples, into.capture);
        return into;
    }

    /**
     * Waits until the discovery that the library's first use started (this call, where it is the first) has settled,
     * at most {@code timeout}, and says whether exact mode serves. Until then the kernel's clocks serve every read (the JDK's for MONOTONIC and REALTIME), so
     * nothing needs it to be correct; a service that wants exact mode's reads from its first request calls it at
     * start-up. Returns at once where the discovery has settled.
     *
     * @param timeout how long to wait at most
     * @return true where exact mode serves; false at the timeout, or where it does not ({@link #diagnostics()}
     *         says why)
     */
    public static boolean awaitExactMode(java.time.Duration timeout) {
        return FastPath.await(timeout.toNanos()) && FastPath.exact();
    }

    /**
     * What serves each clock and why, the stage of this process (discovery, exact mode, the kernel's clocks), the
     * kernel's vDSO data and parameters now, and whether ticks are counter cycles. Waits for a discovery that runs
     * (tens of milliseconds in a cold JVM); reads the kernel's data under its seq; not for hot paths.
     *
     * @return this process's diagnostics, now
     * @throws IllegalArgumentException if {@code timekeeping4j.counter} names no mode
     */
    public static Diagnostics diagnostics() {
        return ServingReport.now();
    }

    /**
     * Why this clock cannot be read now, or empty where it can.
     *
     * @param clock any clock
     * @return the reason (one line), or empty where the clock can be read
     */
    public static Optional<String> whyUnsupported(ClockId clock) {
        int errno = LinuxTime.clockGettimeErrno(clock.id());
        return errno == 0 ? Optional.empty() : Optional.of(KernelPath.reason(clock, errno));
    }

    /**
     * A {@link java.time.Clock} in {@code zone} reading REALTIME or TAI through {@link #nanos} (the fast path where it
     * serves); a Clock is also the {@link java.time.InstantSource} over the clock. For TAI the instants are TAI
     * seconds since the TAI epoch, which java.time labels as UTC: they run ahead of REALTIME by the kernel's TAI
     * offset (see {@link SyncStatus#taiOffsetSeconds()}).
     *
     * <p>The clocks are not serializable (java.time.Clock asks each implementation to say): they read this process's
     * kernel, which another process does not share; a {@code Clock.offset} or {@code Clock.tick} over one fails at
     * {@code writeObject}. They are immutable and thread-safe; equal where clock and zone are.
     *
     * @throws IllegalArgumentException for any clock other than REALTIME or TAI
     * @param clock REALTIME or TAI
     * @param zone  the zone the clock reports
     * @return a java.time.Clock over {@code clock}
     */
    public static Clock javaClock(ClockId clock, ZoneId zone) {
        if (clock != ClockId.REALTIME && clock != ClockId.TAI) {
            throw new IllegalArgumentException(
                    "java.time views exist for REALTIME and TAI only; " + clock + " does not count from the epoch");
        }
        return JavaTimeClock.of(clock, zone);
    }
}
