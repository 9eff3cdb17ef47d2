package org.timekeeping4j.tracking;

import java.util.function.BooleanSupplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.MultShift;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * How the tracker follows the kernel: its policy, apart from the thread that runs it and the publication
 * ({@link KernelTracker}). Each step samples the kernel (the narrowest of several brackets: clock_gettime,
 * counter, clock_gettime; see {@link Sample}) and
 * <ul>
 *   <li>accepts the step's brackets for correction only when they are narrow ({@link #acceptWidth});</li>
 *   <li>estimates each line's frequency over a long baseline ({@link SampleHistory}), and feeds a change of the
 *       kernel's steered rate forward at once ({@link SteeringWatch});</li>
 *   <li>slews the phase error (kernel minus ours at the same counter value) away over the next interval: the
 *       frequency handed to a timekeeper is slope + error * {@link #GAIN} / interval. The timekeeper applies a new
 *       frequency continuously at its update's counter value, so the clocks never jump;</li>
 *   <li>follows the offsets of REALTIME, BOOTTIME and TAI ({@link OffsetFollower});</li>
 *   <li>chooses the next interval ({@link #nextInterval}) and says when the pair has converged, or must be rebuilt
 *       or given up ({@link Verdict}).</li>
 * </ul>
 * Everything it reads of the kernel goes through an {@link Environment}, so that it runs deterministically over a
 * simulated counter and kernel in tests. Updater thread only, except the statistics (volatile, or under the
 * residuals' lock).
 */
final class TrackingPolicy {

    /** Steps per second while converging (first {@link #FAST_PHASE_NANOS} after a (re)build). */
    static final long FAST_INTERVAL_NANOS = 10_000_000L;
    /**
     * The longest interval between steps once converged. Each step costs the updater CPU (hundreds of us where it
     * was measured, about half of it the wake-up from poll itself: docs/PERFORMANCE.md), so the interval grows while the clocks
     * agree: the frequency, estimated over a baseline of up to a minute, is good to about 1 ppb, which keeps the
     * error below a few ns even two seconds after an update.
     */
    static final long MAX_INTERVAL_NANOS = 2_000_000_000L;
    /** The interval a phase error beyond {@link #CONVERGED_NANOS} falls back to. */
    static final long INTERVAL_NANOS = 50_000_000L;
    static final long FAST_PHASE_NANOS = 2_000_000_000L;
    /** Readers extrapolate at most this many intervals past an update. */
    static final int VALIDITY_INTERVALS = 4;
    /** Phase errors beyond this are a discontinuity (suspend, counter jump): rebuild. */
    static final long REBUILD_NANOS = 100_000L;
    /** Rebuilds without a publication in between before the tracker gives up. */
    static final int MAX_REBUILDS = 3;
    /** A pair converges after this many steps within {@link #CONVERGED_NANOS}... */
    static final int CONVERGED_STEPS = 3;
    static final long CONVERGED_NANOS = 25;
    /** ... and a frequency baseline at least this long. */
    static final long MIN_BASELINE_NANOS = 250_000_000L;
    /** Fraction of the phase error slewed away per interval. */
    static final double GAIN = 0.5;
    static final int BRACKET_TRIES = 24;
    /** Rounds of 1000 brackets per line before the first anchor (see {@link #warmUp}). */
    static final int WARM_UP_ROUNDS = 100;
    /** How often the kernel's current clocksource is checked. */
    static final long CLOCKSOURCE_CHECK_NANOS = 5_000_000_000L;

    private static final int RESIDUALS = 4096;
    private static final int MONO = 0;
    private static final int RAW = 1;

    /** What the policy reads of the kernel: the seam its tests replace with a simulated kernel. */
    interface Environment {
        /** Fills {@code into} with the narrowest of {@code tries} brackets clock_gettime / counter / clock_gettime. */
        void bracket(Clocksource counter, ClockId clock, int tries, Sample into);

        /** The interval {@code other - base} lies in, from the narrowest of {@code tries} brackets base/other/base. */
        void offsetBounds(ClockId base, ClockId other, int tries, long[] loHi);

        /** clock_gettime in ns. */
        long nanos(ClockId clock);

        /** adjtimex's reading now, or null where it is refused (seccomp, ProtectClock=). */
        TimexReading adjtimex();

        /** The kernel's current clocksource. */
        String currentClocksource();
    }

    /** What a {@link #step} asks of the tracker. */
    enum Verdict {
        /** Nothing: the timekeepers were updated. */
        UPDATED,
        /** The pair has converged and may be published (unless readers' floors are still ahead of it). */
        CONVERGED,
        /** A discontinuity ({@link #why()}): serve from the kernel and {@link #build} a new pair. */
        REBUILD,
        /** Give up for good ({@link #why()}): serve from the kernel. */
        STOP
    }

    private final Environment kernel;
    private final Clocksource counter;
    private final String expectedClocksource;
    /** {@link #MAX_INTERVAL_NANOS}, or less on a fast counter: see {@link #maxInterval}. */
    private final long maxIntervalNanos;
    private final SteeringWatch steering = new SteeringWatch();
    private final SampleHistory history = new SampleHistory();
    private final OffsetFollower offsets;
    private final TrackingAdjustment adjustedSteering = new TrackingAdjustment();
    private final TrackingAdjustment rawSteering = new TrackingAdjustment();
    private final Sample monoBracket = new Sample();
    private final Sample rawBracket = new Sample();
    /** The narrowest recent bracket width of each line, MONO and RAW (see {@link #acceptWidth}). */
    private final long[] narrowestWidth = {Long.MAX_VALUE / 2, Long.MAX_VALUE / 2};
    private Timekeeper adjusted;
    private Timekeeper raw;
    private boolean warmedUp;
    private long intervalNanos = FAST_INTERVAL_NANOS;
    private long builtAt;
    private int convergedSteps;
    private int rebuildsSincePublished;
    private long lastClocksourceCheck;
    /** MONOTONIC's slope, kept across steps where too few samples follow a steering change to measure it. */
    private long monoSlopePpb;
    private String why;

    // ---- statistics: written by the updater, read by any thread -----------------------------------------------
    private final long[] residuals = new long[RESIDUALS]; // guarded by itself
    private volatile long steps;
    private volatile long lastMonoError;
    private volatile long lastRawError;
    private volatile long monoPpb;
    private volatile long rawPpb;
    private volatile long realtimeSteps;
    private volatile int rebuilds;
    private volatile long baselineNanos;
    private volatile RawLine rawLine;

    TrackingPolicy(Clocksource counter, Environment kernel) {
        this.counter = counter;
        this.kernel = kernel;
        this.maxIntervalNanos = maxInterval(counter.frequencyHz());
        this.expectedClocksource = kernel.currentClocksource();
        this.offsets = new OffsetFollower(kernel, counter);
    }

    /**
     * The longest interval for a counter of {@code frequencyHz}: {@link #MAX_INTERVAL_NANOS}, or 80% of 2^32 cycles
     * if that is shorter (a counter faster than 1.72 GHz). The machine-code read's fast path serves at least 2^32
     * cycles past an update (PagePublisher.anyLimit: the counter's high half may move on by one), so every read before
     * the next update, even one late by a quarter of the interval, is served by it; later reads are exact too, on
     * the slow path, a few ns dearer.
     */
    static long maxInterval(double frequencyHz) {
        return Math.min(MAX_INTERVAL_NANOS, (long) (0.8 * 4_294_967_296.0 / frequencyHz * 1e9));
    }

    /**
     * Runs the sampling code until the JIT has compiled it, once. This matters for accuracy, not speed: where the
     * kernel's counter read falls inside a bracket depends on how fast the Java code around it runs, and
     * interpreted brackets placed the clock behind what compiled user code sees, by far more than the tracker's own
     * error bound said (a k/fast/k probe measured it: docs/PERFORMANCE.md).
     */
    void warmUp(BooleanSupplier stopping) {
        if (warmedUp) {
            return;
        }
        warmedUp = true;
        for (int i = 0; i < WARM_UP_ROUNDS && !stopping.getAsBoolean(); i++) {
            kernel.bracket(counter, ClockId.MONOTONIC, 1000, monoBracket);
            kernel.bracket(counter, ClockId.MONOTONIC_RAW, 1000, rawBracket);
        }
    }

    /** (Re)anchors both timekeepers on the kernel. Readers use the kernel until they converge. */
    void build() {
        kernel.bracket(counter, ClockId.MONOTONIC, 64, monoBracket);
        offsets.anchor();
        int tai = offsets.taiSeconds();
        kernel.bracket(counter, ClockId.MONOTONIC, 64, monoBracket);
        // Anchored on the sample's counter value: the line agrees with the kernel within half the bracket.
        long monoNow = monoBracket.kernel;
        adjustedSteering.set(0);
        adjusted = Timekeeper.builder(counter).adjustment(adjustedSteering).anchorCounter(monoBracket.counter)
                .monotonicNanos(monoNow).realtimeNanos(monoNow + offsets.realtimeOffsetNanos())
                .boottimeOffsetNanos(offsets.boottimeOffsetNanos()).taiOffsetSeconds(tai).historySize(1024).build();
        kernel.bracket(counter, ClockId.MONOTONIC_RAW, 64, rawBracket);
        rawSteering.set(0);
        raw = Timekeeper.builder(counter).adjustment(rawSteering).anchorCounter(rawBracket.counter)
                .monotonicNanos(rawBracket.kernel).historySize(1024).build();
        history.clear();
        convergedSteps = 0;
        narrowestWidth[MONO] = Math.max(1, monoBracket.width);
        narrowestWidth[RAW] = Math.max(1, rawBracket.width);
        builtAt = kernel.nanos(ClockId.MONOTONIC);
        setValidity(FAST_INTERVAL_NANOS);
    }

    /**
     * {@return the interval to the next step: shortest while converging, never below {@link #INTERVAL_NANOS} (the
     * floor) after that} While the kernel's rate moves (a time daemon changes it, chronyd about every second) the
     * floor holds: the change itself is fed forward from adjtimex at the next step, so sampling faster would buy
     * little and, under a daemon that never stops steering, cost a hundred updates a second for as long as it runs.
     */
    long nextInterval() {
        long now = kernel.nanos(ClockId.MONOTONIC);
        if (now - builtAt < FAST_PHASE_NANOS) {
            intervalNanos = FAST_INTERVAL_NANOS; // converging
        } else if (steering.settling(now)) {
            intervalNanos = INTERVAL_NANOS; // the kernel's rate moved lately: the floor, no growth
        } else if (Math.abs(lastMonoError) > CONVERGED_NANOS || Math.abs(lastRawError) > CONVERGED_NANOS) {
            intervalNanos = INTERVAL_NANOS;
        } else {
            intervalNanos = Math.min(maxIntervalNanos, Math.max(INTERVAL_NANOS, intervalNanos + intervalNanos / 2));
        }
        return intervalNanos;
    }

    /**
     * One step, {@code intervalNanos} after the last: measure, steer, update both timekeepers, follow the offsets.
     *
     * @param realtimeWasSet the kernel said REALTIME was set since the last step
     * @param serving        the pair serves readers (then its offsets move only on kernel events)
     */
    Verdict step(boolean realtimeWasSet, long intervalNanos, boolean serving) {
        long now = kernel.nanos(ClockId.MONOTONIC);
        if (now - lastClocksourceCheck > CLOCKSOURCE_CHECK_NANOS) {
            lastClocksourceCheck = now;
            String cs = kernel.currentClocksource();
            if (!cs.equals(expectedClocksource)) {
                why = "the kernel's clocksource changed from " + expectedClocksource + " to " + cs;
                return Verdict.STOP;
            }
        }
        long feedForwardPpb = steering.poll(now, kernel);
        if (feedForwardPpb != 0) {
            history.monoRateChanged();
        }
        kernel.bracket(counter, ClockId.MONOTONIC, BRACKET_TRIES, monoBracket);
        kernel.bracket(counter, ClockId.MONOTONIC_RAW, BRACKET_TRIES, rawBracket);
        long monoError = monoBracket.kernel - adjusted.convert(monoBracket.counter, ClockId.MONOTONIC);
        long rawError = rawBracket.kernel
                - raw.convert(rawBracket.counter, Publication.lineClock(CounterClock.MONOTONIC_RAW));
        lastMonoError = monoError;
        lastRawError = rawError;
        if (Math.abs(monoError) > REBUILD_NANOS || Math.abs(rawError) > REBUILD_NANOS) {
            return discontinuity("phase error " + monoError + " ns (MONOTONIC), " + rawError + " ns (MONOTONIC_RAW)");
        }
        recordResidual(monoError);
        // A bracket much wider than the narrowest seen lately was stretched (preemption, an interrupt, a cache
        // miss): its midpoint can be tens of ns off. Such a step keeps its frequency but neither corrects the phase
        // nor joins the frequency history, so noise is not slewed into the clock.
        boolean monoAccepted = acceptWidth(monoBracket.width, MONO);
        boolean rawAccepted = acceptWidth(rawBracket.width, RAW);
        if (monoAccepted && rawAccepted) {
            history.add(monoBracket.counter, monoBracket.kernel, rawBracket.counter, rawBracket.kernel,
                    counter.frequencyHz());
        }
        long slope = history.monoSlopePpb(adjusted);
        // Fewer than two samples since the kernel's rate changed: the previous slope plus the change.
        monoSlopePpb = slope != SampleHistory.NO_SLOPE ? slope : monoSlopePpb + feedForwardPpb;
        long rawSlope = history.rawSlopePpb(raw);
        baselineNanos = history.baselineNanos();
        long mono = monoSlopePpb + (monoAccepted ? slewPpb(monoError, intervalNanos) : 0);
        long rawLinePpb = (rawSlope == SampleHistory.NO_SLOPE ? 0 : rawSlope)
                + (rawAccepted ? slewPpb(rawError, intervalNanos) : 0);
        adjustedSteering.set(mono);
        rawSteering.set(rawLinePpb);
        monoPpb = mono;
        rawPpb = rawLinePpb;
        setValidity(intervalNanos);
        adjusted.update();
        raw.update();
        // TAI and BOOTTIME offsets change only with kernel events: every 4th step is plenty.
        switch (offsets.follow(adjusted, !serving, realtimeWasSet, (steps & 3) == 0, monoError)) {
            case SUSPENDED -> {
                return discontinuity("BOOTTIME - MONOTONIC changed by " + offsets.lastSuspendNanos()
                        + " ns: the machine was suspended");
            }
            case REALTIME_STEPPED -> realtimeSteps++;
            case FOLLOWED -> { }
        }
        rawLine = rawLine(intervalNanos);
        steps++;
        if (serving) {
            return Verdict.UPDATED;
        }
        // Converged: small phase errors, and a frequency baseline long enough that the error cannot grow by more
        // than a few ns between updates (brackets of +/-25 ns over 250 ms: 0.2 ppm, 2 ns/10 ms).
        convergedSteps = Math.abs(monoError) <= CONVERGED_NANOS && Math.abs(rawError) <= CONVERGED_NANOS
                && baselineNanos >= MIN_BASELINE_NANOS ? convergedSteps + 1 : 0;
        return convergedSteps >= CONVERGED_STEPS ? Verdict.CONVERGED : Verdict.UPDATED;
    }

    /** The tracker published the pair after {@link Verdict#CONVERGED}. */
    void published() {
        rebuildsSincePublished = 0;
    }

    /** {@return why the last step asked for a rebuild or a stop} */
    String why() {
        return why;
    }

    /** A phase error beyond the bound, or a suspend: rebuild, or give up when it keeps coming back. */
    private Verdict discontinuity(String reason) {
        rebuilds++;
        if (++rebuildsSincePublished > MAX_REBUILDS) {
            why = "phase errors beyond " + REBUILD_NANOS + " ns kept coming back (" + reason + ")";
            return Verdict.STOP;
        }
        why = reason;
        return Verdict.REBUILD;
    }

    /**
     * Whether a bracket is narrow enough to trust: within 1.5x the narrowest of the recent ones (the reference
     * relaxes by 1/64 per step so that a machine that got slower is followed).
     */
    private boolean acceptWidth(long width, int line) {
        long narrowest = narrowestWidth[line];
        if (width < narrowest) {
            narrowestWidth[line] = width;
            return true;
        }
        narrowestWidth[line] = narrowest + Math.max(1, narrowest / 64);
        return width <= narrowest + narrowest / 2;
    }

    private static long slewPpb(long errorNanos, long intervalNanos) {
        return Math.round(errorNanos * GAIN * 1e9 / intervalNanos);
    }

    private void setValidity(long intervalNanos) {
        long cycles = (long) (intervalNanos * (double) VALIDITY_INTERVALS * counter.frequencyHz() / 1e9);
        adjusted.setValidityCycles(cycles);
        raw.setValidityCycles(cycles);
    }

    /** The raw line's parameters after the update just made. */
    private RawLine rawLine(long intervalNanos) {
        long mult = raw.monoMult();
        int shift = raw.shift();
        long base = rawBracket.counter;
        double hz = MultShift.frequencyHz(mult, shift);
        // Two brackets a baseline apart: each kernel time is known within half its width.
        double ppb = baselineNanos > 0 ? (rawBracket.width + 2.0) / baselineNanos * 1e9 : 1e6;
        return new RawLine(hz, mult, shift, ppb, base, raw.convert(base, Publication.lineClock(CounterClock.MONOTONIC_RAW)),
                intervalNanos * VALIDITY_INTERVALS, baselineNanos);
    }

    private void recordResidual(long error) {
        synchronized (residuals) {
            residuals[(int) (steps % RESIDUALS)] = Math.abs(error);
        }
    }

    // ---- results -------------------------------------------------------------------------------------------------

    Timekeeper adjusted() {
        return adjusted;
    }

    Timekeeper raw() {
        return raw;
    }

    long steps() {
        return steps;
    }

    long lastMonoError() {
        return lastMonoError;
    }

    long lastRawError() {
        return lastRawError;
    }

    long monoPpb() {
        return monoPpb;
    }

    long rawPpb() {
        return rawPpb;
    }

    long realtimeSteps() {
        return realtimeSteps;
    }

    int rebuilds() {
        return rebuilds;
    }

    /** {@return the raw line after the last step, or null before the first} */
    RawLine rawLine() {
        return rawLine;
    }

    /** {@return the last change of the kernel's steered rate seen through adjtimex, one line} */
    String lastSteeringChange() {
        return steering.lastChange();
    }

    /** {@return the largest |MONOTONIC phase error| over the last 32 steps, ns, or -1 before the first} */
    long errorBoundNanos() {
        long n = Math.min(steps, 32);
        if (n == 0) {
            return -1;
        }
        long max = 0;
        synchronized (residuals) {
            for (long k = 1; k <= n; k++) {
                max = Math.max(max, residuals[(int) ((steps - k) % RESIDUALS)]);
            }
        }
        return max;
    }
}
