package org.timekeeping4j.tracking;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.Calibration;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.TimerFd;
import org.timekeeping4j.timekeeper.Conversion;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * A user-space timekeeper that tracks the kernel's clocks at counter speed: the vDSO of timekeeping4j.
 *
 * <h2>How it follows the kernel</h2>
 * Two {@link Timekeeper}s read the same ordered hardware counter: {@code mono}'s adjusted line follows
 * CLOCK_MONOTONIC (REALTIME, BOOTTIME and TAI are offsets of it, as in the kernel), {@code raw}'s
 * adjusted line follows CLOCK_MONOTONIC_RAW. A daemon thread, the updater, samples the kernel at
 * every step: the narrowest of several brackets (clock_gettime, counter, clock_gettime: the shape of a
 * user's check, with nothing else inside; see {@link Sample}) gives a counter value and the kernel's time
 * at it within half the bracket. From these it
 * <ul>
 *   <li>estimates each line's frequency over a long baseline (up to {@link #BASELINE_NANOS}): the slope of
 *       kernel time over counter cycles, to a few ppb once the baseline is long;</li>
 *   <li>measures the phase error (kernel minus ours at the same counter value) and slews it away over the
 *       next interval: the frequency it hands the timekeeper is slope + error / interval. The timekeeper
 *       applies a new frequency continuously at its update's counter value, so the clocks never jump,
 *       and it is monotonic across updates (see Timekeeper's class comment);</li>
 *   <li>bounds the offsets REALTIME - MONOTONIC and BOOTTIME - MONOTONIC by intersecting bracket
 *       intervals (they are constants between kernel events; a disjoint interval is a kernel event), and
 *       centres each inside its bounds the way the lines are centred (the kernel clock around one counter
 *       read, minus the MONOTONIC line's own error); reads TAI - UTC.</li>
 * </ul>
 *
 * <h2>Kernel events</h2>
 * <ul>
 *   <li>REALTIME set (clock_settime, ADJ_SETOFFSET, leap second, resume): a timerfd armed with
 *       TFD_TIMER_CANCEL_ON_SET wakes the updater at once; it re-measures the offset and steps REALTIME
 *       and TAI (MONOTONIC untouched; the clock-was-set sequence moves).</li>
 *   <li>Suspend/resume, or any jump of the counter against the kernel beyond {@link #REBUILD_NANOS}:
 *       the timekeepers are rebuilt, anchored on the kernel again. Readers meanwhile use the kernel.</li>
 *   <li>The kernel leaving the counter's clocksource (current_clocksource changes), or residuals beyond
 *       the bound three times: the tracker stops for good and readers use the kernel.</li>
 *   <li>An updater starved past the validity window: readers stop extrapolating (Timekeeper.readFresh)
 *       and use the kernel.</li>
 * </ul>
 * Every switch to the kernel path returns at least the highest value a fast read could have returned
 * under the last state ({@link Timekeeper#freshCeiling}), so a clock never goes back when its path
 * changes.
 *
 * <h2>Assumptions and guarantees</h2>
 * One updater thread writes; any number of readers. Readers allocate nothing and take no lock. The
 * updater's cost at default settings is measured by {@link Status#updaterCpuNanos()}.
 */
public final class KernelTracker implements AutoCloseable {

    /** Steps per second while converging (first {@link #FAST_PHASE_NANOS} after a (re)build). */
    static final long FAST_INTERVAL_NANOS = 10_000_000L;
    /**
     * The longest interval between steps once converged. Each step costs the updater a few hundred us of
     * CPU on this VM (measured: about half of it the wake-up from poll itself), so the interval grows
     * while the clocks agree: the frequency, estimated over a baseline of up to a minute, is good to about
     * 1 ppb, which keeps the error below a few ns even two seconds after an update.
     */
    static final long MAX_INTERVAL_NANOS = 2_000_000_000L;
    /** The interval a phase error beyond {@link #CONVERGED_NANOS} falls back to. */
    static final long INTERVAL_NANOS = 50_000_000L;
    static final long FAST_PHASE_NANOS = 2_000_000_000L;
    /** The longest baseline for the frequency estimate. */
    static final long BASELINE_NANOS = 60_000_000_000L;
    /** Readers extrapolate at most this many intervals past an update. */
    static final int VALIDITY_INTERVALS = 4;
    /** Phase errors beyond this are a discontinuity (suspend, counter jump): rebuild. */
    static final long REBUILD_NANOS = 100_000L;
    /** A state is published for readers only after this many steps within {@link #CONVERGED_NANOS}. */
    static final int CONVERGED_STEPS = 3;
    static final long CONVERGED_NANOS = 25;
    /** ... and a frequency baseline at least this long. */
    static final long MIN_BASELINE_NANOS = 250_000_000L;
    /** Fraction of the phase error slewed away per interval. */
    static final double GAIN = 0.5;
    static final int BRACKET_TRIES = 24;
    /** Rounds of 1000 brackets per line before the first anchor (see {@link #warmUp()}). */
    static final int WARM_UP_ROUNDS = 100;

    private static final int HISTORY = 2048;
    private static final int RESIDUALS = 4096;

    private final Clocksource counter;
    private final String expectedClocksource;
    private final Thread updater;
    private final TimerFd realtimeSet; // null where timerfd is refused
    private final String realtimeSetProblem;

    // ---- published to readers -------------------------------------------------------------------------
    // Readers load these plain-volatile: null means "use the kernel" (not converged, rebuilding, stopped).
    // The floors are written before the volatile null store that publishes them (release), and read after
    // the volatile load that saw null (acquire).
    private volatile Timekeeper mono;
    private volatile Timekeeper raw;
    private final long[] floors = new long[ClockId.values().length];
    private volatile String inactiveReason = "starting";
    private volatile boolean stopped;
    /** Moves whenever the serving timekeepers change (published, re-anchored, given up). */
    private volatile long sourceChangedSeq;

    // ---- updater-only state ---------------------------------------------------------------------------
    private Timekeeper tkMono;
    private Timekeeper tkRaw;
    private final TrackingAdjustment adjMono = new TrackingAdjustment();
    private final TrackingAdjustment adjRaw = new TrackingAdjustment();
    private final Sample sMono = new Sample();
    private final Sample sRaw = new Sample();
    private final Sample sOffset = new Sample();
    private final Sample sOffsetClock = new Sample();
    private final long[] hCounter = new long[HISTORY];
    private final long[] hMono = new long[HISTORY];
    private final long[] hRaw = new long[HISTORY];
    private int hCount;
    private boolean warmedUp;
    private long interval_ = FAST_INTERVAL_NANOS;
    /** {@link #MAX_INTERVAL_NANOS}, or less on a fast counter: see {@link #maxInterval}. */
    private final long maxIntervalNanos;
    private final long[] narrowest = {Long.MAX_VALUE / 2, Long.MAX_VALUE / 2};
    private long builtAt;
    private int convergedSteps;
    private int rebuilds;
    private int residualFaults;
    private final long[] interval = new long[2];
    private long realLo;
    private long realHi;
    private long bootLo;
    private long bootHi;
    private long lastClocksourceCheck;

    // ---- statistics (written by the updater, read by status()) -----------------------------------------
    private final long[] residuals = new long[RESIDUALS];
    // What adjtimex says the kernel's NTP code does to the MONOTONIC rate: a change is fed forward at once
    // and the MONOTONIC slope restarts from the samples after it (monoFloor: hCount at the change).
    private final SteeringWatch steering = new SteeringWatch();
    private int monoFloor;
    private long slopeM;
    private volatile long steps;
    private volatile long updaterCpuNanos;
    private volatile long lastErrorMono;
    private volatile long lastErrorRaw;
    private volatile long monoPpb;
    private volatile long rawPpb;
    private volatile long realtimeSteps;
    private volatile Calibration calibration =
            new Calibration(false, 0, 0, 0, 0, 0, 0, 0, "not tracking yet");
    private volatile long baselineNanos;

    /**
     * Starts tracking on {@code counter} (an ordered hardware counter whose frequency is calibrated within
     * 100 ppm). Returns at once; readers use the kernel until the first state has converged (typically
     * 50 ms).
     */
    public static KernelTracker start(Clocksource counter) {
        return start(counter, (m, r) -> { });
    }

    /** Told, on the updater thread, whenever the timekeepers serving reads change (null: the kernel serves). */
    @FunctionalInterface
    public interface PublicationListener {
        void published(Timekeeper mono, Timekeeper raw);
    }

    /**
     * As {@link #start(Clocksource)}, telling {@code listener} about every publication: the process-wide fast
     * path mirrors the timekeepers into static fields so that a read takes one dependent load less.
     */
    public static KernelTracker start(Clocksource counter, PublicationListener listener) {
        KernelTracker t = new KernelTracker(counter, listener);
        t.updater.start();
        return t;
    }

    private final PublicationListener listener;

    private KernelTracker(Clocksource counter, PublicationListener listener) {
        this.listener = Objects.requireNonNull(listener);
        this.counter = Objects.requireNonNull(counter);
        this.maxIntervalNanos = maxInterval(counter.frequencyHz());
        this.expectedClocksource = KernelInfo.currentClocksource();
        TimerFd fd = null;
        String problem = null;
        try {
            fd = TimerFd.watchRealtimeSet();
        } catch (ErrnoException e) {
            problem = "timerfd refused (" + e.getMessage() + "): REALTIME steps are seen at the next update";
        }
        this.realtimeSet = fd;
        this.realtimeSetProblem = problem;
        Arrays.fill(floors, Long.MIN_VALUE);
        this.updater = Thread.ofPlatform().daemon().name("timekeeping4j-tracker").unstarted(this::run);
    }

    // ------------------------------------------------------------------------------------------------
    // Readers

    /**
     * The clock's value: from the user-space timekeeper when it is tracking and fresh, else from the kernel
     * (never below what a fast read could have returned). REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI.
     */
    public long nanos(ClockId clock) {
        Timekeeper tk = clock == ClockId.MONOTONIC_RAW ? raw : mono;
        ClockId line = clock == ClockId.MONOTONIC_RAW ? ClockId.MONOTONIC : clock;
        if (tk != null) {
            long v = tk.readFresh(line);
            if (v != Timekeeper.STALE) {
                return v;
            }
            return Math.max(LinuxTime.clockGettimeNanos(clock.id()), tk.freshCeiling(line));
        }
        return Math.max(LinuxTime.clockGettimeNanos(clock.id()), floors[clock.ordinal()]);
    }

    /**
     * Converts a counter value read in the last seconds to what {@link #nanos} returned at that counter
     * value, through the timekeepers' parameter history.
     *
     * @throws IllegalStateException while the tracker is not tracking (nothing to convert with)
     */
    public long convert(long counterValue, ClockId clock) {
        Timekeeper tk = clock == ClockId.MONOTONIC_RAW ? raw : mono;
        if (tk == null) {
            throw new IllegalStateException("the fast path is not tracking the kernel: " + inactiveReason);
        }
        return tk.convert(counterValue, clock == ClockId.MONOTONIC_RAW ? ClockId.MONOTONIC : clock);
    }

    /** Converts with the full result (history flag, clock-was-set sequence); allocation-free. */
    public boolean convert(long counterValue, ClockId clock, Conversion into) {
        Timekeeper tk = clock == ClockId.MONOTONIC_RAW ? raw : mono;
        if (tk == null) {
            throw new IllegalStateException("the fast path is not tracking the kernel: " + inactiveReason);
        }
        return tk.convert(counterValue, clock == ClockId.MONOTONIC_RAW ? ClockId.MONOTONIC : clock, into);
    }

    /** Moves whenever the path serving the clocks changes (the kernel's cs_was_changed_seq analogue). */
    public long sourceChangedSeq() {
        return sourceChangedSeq;
    }

    /**
     * Fills a snapshot for a counter value the caller has just read: {@code clock} and MONOTONIC_RAW
     * converted with the parameters in force at that value, exactly what {@link #nanos} returned there.
     *
     * @return false (nothing written) when not tracking, or when the counter value is past the state's
     *         validity (the updater is starved and fast reads use the kernel)
     */
    public boolean snapshot(long counterValue, ClockId clock, Conversion clockOut,
                            Conversion rawOut) {
        Timekeeper m = mono;
        Timekeeper r = raw;
        if (m == null || r == null) {
            return false;
        }
        ClockId line = clock == ClockId.MONOTONIC_RAW ? ClockId.MONOTONIC : clock;
        Timekeeper tk = clock == ClockId.MONOTONIC_RAW ? r : m;
        // Past the validity a fast read would have used the kernel: so must the snapshot.
        if (!tk.isFresh(counterValue) || !r.isFresh(counterValue)) {
            return false;
        }
        tk.convert(counterValue, line, clockOut);
        r.convert(counterValue, ClockId.MONOTONIC, rawOut);
        return clockOut.withinHistory();
    }

    /** The counter this tracker reads. */
    public Clocksource counter() {
        return counter;
    }

    /** The timekeeper serving {@code clock} now, or null while the kernel serves it. */
    public Timekeeper timekeeper(ClockId clock) {
        return clock == ClockId.MONOTONIC_RAW ? raw : mono;
    }

    /** True while reads are served from the counter. */
    public boolean isTracking() {
        return mono != null;
    }

    // ------------------------------------------------------------------------------------------------
    // Status

    /**
     * What the tracker is doing.
     *
     * @param tracking        reads are served from the counter
     * @param reason          why not, when not tracking ("starting", "stopped: ...")
     * @param steps           updates so far
     * @param monoErrorNanos  the last measured phase error of MONOTONIC (kernel minus ours)
     * @param rawErrorNanos   the same for MONOTONIC_RAW
     * @param monoPpb         the frequency offset the MONOTONIC line runs at, against the counter's nominal
     * @param rawPpb          the same for the raw line
     * @param realtimeSteps   REALTIME steps followed
     * @param rebuilds        re-anchorings after a discontinuity
     * @param updaterCpuNanos CPU time the updater thread has used
     * @param timerfdProblem  null, or why REALTIME steps are only seen at the next update
     */
    public record Status(boolean tracking, String reason, long steps, long monoErrorNanos, long rawErrorNanos,
                         long monoPpb, long rawPpb, long realtimeSteps, int rebuilds, long updaterCpuNanos,
                         String timerfdProblem) {}

    public Status status() {
        return new Status(mono != null, mono != null ? "tracking" : inactiveReason, steps, lastErrorMono,
                lastErrorRaw, monoPpb, rawPpb, realtimeSteps, rebuilds, updaterCpuNanos, realtimeSetProblem);
    }

    /** The absolute MONOTONIC phase errors of the last up to 4096 steps, in ns (a copy). */
    public long[] recentResiduals() {
        long n = Math.min(steps, RESIDUALS);
        synchronized (residuals) {
            return Arrays.copyOf(residuals, (int) n);
        }
    }

    /** Waits until tracking (or stopped); true if tracking. */
    public boolean awaitTracking(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (mono == null && !stopped && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L);
        }
        return mono != null;
    }

    /** Stops the updater and serves every read from the kernel from now on. */
    @Override
    public void close() {
        stopped = true;
        updater.interrupt();
        try {
            updater.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (realtimeSet != null) {
            realtimeSet.close();
        }
    }

    /** True once the updater thread has ended. */
    public boolean isClosed() {
        return stopped && !updater.isAlive();
    }

    // ------------------------------------------------------------------------------------------------
    // The updater

    private void run() {
        try {
            build();
            while (!stopped) {
                long intervalNanos = currentInterval();
                boolean set = waitInterval(intervalNanos);
                if (stopped) {
                    break;
                }
                step(set, intervalNanos);
                updaterCpuNanos = LinuxTime.clockGettimeNanos(ClockId.THREAD_CPUTIME_ID.id());
            }
        } catch (RuntimeException | Error e) {
            deactivate("the updater failed: " + e);
        } finally {
            if (mono != null) {
                deactivate("stopped");
            }
        }
    }

    /**
     * The longest interval for a counter of {@code frequencyHz}: {@link #MAX_INTERVAL_NANOS}, or 80% of 2^32
     * cycles if that is shorter (a counter faster than 1.72 GHz). The machine-code read's fast path serves
     * at least 2^32 cycles past an update (VvarPage.anyLimit: the counter's high half may move on by one),
     * so every read before the next update, even one late by a quarter of the interval, is served by it;
     * later reads are exact too, on the slow path, a few ns dearer.
     */
    static long maxInterval(double frequencyHz) {
        return Math.min(MAX_INTERVAL_NANOS, (long) (0.8 * 4_294_967_296.0 / frequencyHz * 1e9));
    }

    private long currentInterval() {
        long t = now();
        if (t - builtAt < FAST_PHASE_NANOS || steering.settling(t)) {
            interval_ = FAST_INTERVAL_NANOS; // converging, or the kernel's rate moved lately
        } else if (Math.abs(lastErrorMono) > CONVERGED_NANOS || Math.abs(lastErrorRaw) > CONVERGED_NANOS) {
            interval_ = INTERVAL_NANOS;
        } else {
            interval_ = Math.min(maxIntervalNanos, Math.max(INTERVAL_NANOS, interval_ + interval_ / 2));
        }
        return interval_;
    }

    /** Sleeps one interval; wakes early (returning true) when REALTIME is set. */
    private boolean waitInterval(long nanos) {
        if (realtimeSet != null) {
            try {
                return realtimeSet.await((int) Math.max(1, nanos / 1_000_000L));
            } catch (ErrnoException | IllegalStateException e) {
                if (stopped) {
                    return false;
                }
                throw e;
            }
        }
        LockSupport.parkNanos(nanos);
        return false;
    }

    /** (Re)anchors both timekeepers on the kernel. Readers use the kernel until they converge. */
    private void build() {
        warmUp();
        sMono.take(counter, ClockId.MONOTONIC.id(), 64);
        sOffset.offset(ClockId.MONOTONIC.id(), ClockId.REALTIME.id(), 256, interval);
        realLo = interval[0];
        realHi = interval[1];
        sOffset.offset(ClockId.MONOTONIC.id(), ClockId.BOOTTIME.id(), 64, interval);
        bootLo = interval[0];
        bootHi = interval[1];
        int tai = taiSeconds();
        sMono.take(counter, ClockId.MONOTONIC.id(), 64);
        // Anchored on the sample's counter value: the line agrees with the kernel within half the bracket.
        long monoNow = sMono.kernel;
        adjMono.set(0);
        tkMono = Timekeeper.builder(counter).adjustment(adjMono).anchorCounter(sMono.counter).monotonicNanos(monoNow)
                .realtimeNanos(monoNow + mid(realLo, realHi)).boottimeOffsetNanos(Math.max(0, mid(bootLo, bootHi)))
                .taiOffsetSeconds(tai).historySize(1024).build();
        sRaw.take(counter, ClockId.MONOTONIC_RAW.id(), 64);
        adjRaw.set(0);
        tkRaw = Timekeeper.builder(counter).adjustment(adjRaw).anchorCounter(sRaw.counter).monotonicNanos(sRaw.kernel).historySize(1024).build();
        hCount = 0;
        convergedSteps = 0;
        narrowest[0] = Math.max(1, sMono.width);
        narrowest[1] = Math.max(1, sRaw.width);
        builtAt = LinuxTime.clockGettimeNanos(ClockId.MONOTONIC.id());
        setValidity(FAST_INTERVAL_NANOS);
    }

    /**
     * Runs the sampling code until the JIT has compiled it. This matters for accuracy, not speed: where
     * the kernel's counter read falls inside a bracket depends on how fast the Java code around it runs,
     * and interpreted brackets placed the clock 100 to 130 ns behind what compiled user code sees
     * (measured here with a k/fast/k probe), while the tracker believed itself within 10 ns.
     */
    private void warmUp() {
        if (warmedUp) {
            return;
        }
        warmedUp = true;
        for (int i = 0; i < WARM_UP_ROUNDS && !stopped; i++) {
            sMono.take(counter, ClockId.MONOTONIC.id(), 1000);
            sRaw.take(counter, ClockId.MONOTONIC_RAW.id(), 1000);
        }
    }

    private void setValidity(long intervalNanos) {
        long cycles = (long) (intervalNanos * (double) VALIDITY_INTERVALS * counter.frequencyHz() / 1e9);
        tkMono.setValidityCycles(cycles);
        tkRaw.setValidityCycles(cycles);
    }

    private void step(boolean realtimeWasSet, long intervalNanos) {
        if (now() - lastClocksourceCheck > 5_000_000_000L) {
            lastClocksourceCheck = now();
            String cs = KernelInfo.currentClocksource();
            if (!cs.equals(expectedClocksource)) {
                stop("the kernel's clocksource changed from " + expectedClocksource + " to " + cs);
                return;
            }
        }
        long feedForwardPpb = steering.poll(now());
        if (feedForwardPpb != 0) {
            monoFloor = hCount; // the slope before the change describes a rate the kernel no longer runs at
        }
        sMono.take(counter, ClockId.MONOTONIC.id(), BRACKET_TRIES);
        sRaw.take(counter, ClockId.MONOTONIC_RAW.id(), BRACKET_TRIES);
        long errMono = sMono.kernel - tkMono.convert(sMono.counter, ClockId.MONOTONIC);
        long errRaw = sRaw.kernel - tkRaw.convert(sRaw.counter, ClockId.MONOTONIC);
        lastErrorMono = errMono;
        lastErrorRaw = errRaw;
        if (Math.abs(errMono) > REBUILD_NANOS || Math.abs(errRaw) > REBUILD_NANOS) {
            rebuild("phase error " + errMono + " ns (MONOTONIC), " + errRaw + " ns (MONOTONIC_RAW)");
            return;
        }
        record(errMono);
        // A bracket much wider than the narrowest seen lately was stretched (preemption, an interrupt, a cache
        // miss): its midpoint can be tens of ns off. Such a step keeps its frequency but neither corrects
        // the phase nor joins the frequency history, so noise is not slewed into the clock.
        boolean monoGood = goodWidth(sMono.width, 0);
        boolean rawGood = goodWidth(sRaw.width, 1);
        if (monoGood && rawGood) {
            remember(sMono.counter, sMono.kernel, sRaw.counter, sRaw.kernel);
        }
        long slope = frequencyPpb(hMono, tkMono, monoFloor);
        // Fewer than two samples since the kernel's rate changed: the previous slope plus the change.
        slopeM = slope != NO_SLOPE ? slope : slopeM + feedForwardPpb;
        long slopeR = frequencyPpb(hRaw, tkRaw, 0);
        long ppbM = slopeM + (monoGood ? slewPpb(errMono, intervalNanos) : 0);
        long ppbR = (slopeR == NO_SLOPE ? 0 : slopeR) + (rawGood ? slewPpb(errRaw, intervalNanos) : 0);
        adjMono.set(ppbM);
        adjRaw.set(ppbR);
        monoPpb = ppbM;
        rawPpb = ppbR;
        setValidity(intervalNanos);
        tkMono.update();
        tkRaw.update();
        followOffsets(realtimeWasSet, errMono);
        publishCalibration(intervalNanos);
        steps++;
        if (mono == null) {
            // Converged: small phase errors, and a frequency baseline long enough that the error cannot grow
            // by more than a few ns between updates (brackets of +/-25 ns over 250 ms: 0.2 ppm, 2 ns/10 ms).
            convergedSteps = Math.abs(errMono) <= CONVERGED_NANOS && Math.abs(errRaw) <= CONVERGED_NANOS
                    && baselineNanos >= MIN_BASELINE_NANOS ? convergedSteps + 1 : 0;
            if (convergedSteps >= CONVERGED_STEPS && aboveFloors()) {
                raw = tkRaw;
                sourceChangedSeq++;
                mono = tkMono; // volatile store: publishes the converged timekeepers to readers
                listener.published(tkMono, tkRaw);
                residualFaults = 0;
            }
        }
    }

    private static long now() {
        return LinuxTime.clockGettimeNanos(ClockId.MONOTONIC.id());
    }

    private void remember(long cMono, long kMono, long cRaw, long kRaw) {
        int i = hCount++ & (HISTORY - 1);
        hCounter[i] = cMono;
        hMono[i] = kMono;
        // The raw sample's counter differs from the mono one by the bracket's spacing; store the raw line
        // against its own counter by shifting its kernel time to cMono with the nominal rate (sub-ns error).
        hRaw[i] = kRaw + (long) ((cMono - cRaw) * 1e9 / counter.frequencyHz());
    }

    /**
     * The frequency offset (ppb against the timekeeper's raw mult) that makes a line run at the kernel's
     * rate: the slope between the newest sample and the oldest within the baseline.
     */
    private long frequencyPpb(long[] kernel, Timekeeper tk, int floor) {
        if (hCount - floor < 2) {
            return NO_SLOPE;
        }
        int newest = (hCount - 1) & (HISTORY - 1);
        int available = Math.min(hCount - floor, HISTORY);
        int oldest = (hCount - available) & (HISTORY - 1);
        // Skip samples older than the baseline.
        for (int k = available; k > 2; k--) {
            int i = (hCount - k) & (HISTORY - 1);
            if (kernel[newest] - kernel[i] <= BASELINE_NANOS) {
                oldest = i;
                break;
            }
        }
        long dc = hCounter[newest] - hCounter[oldest];
        long dk = kernel[newest] - kernel[oldest];
        baselineNanos = dk;
        if (dc <= 0 || dk <= 0) {
            return 0;
        }
        double nsPerCycle = (double) dk / dc;
        double nominal = tk.rawMult() / Math.scalb(1.0, tk.shift());
        return Math.round((nsPerCycle / nominal - 1) * 1e9);
    }

    /** The raw line's parameters for {@link #calibration()}, after the update just published. */
    private void publishCalibration(long intervalNanos) {
        long mult = tkRaw.monoMult();
        int shift = tkRaw.shift();
        long base = sRaw.counter;
        double hz = 1e9 * Math.scalb(1.0, shift) / mult;
        // Two brackets a baseline apart: each kernel time is known within half its width.
        double ppb = baselineNanos > 0 ? (sRaw.width + 2.0) / baselineNanos * 1e9 : 1e6;
        calibration = new Calibration(true, hz, mult, shift, ppb, base, tkRaw.convert(base, ClockId.MONOTONIC),
                intervalNanos * VALIDITY_INTERVALS, null);
    }

    /** The raw line's calibration now; {@code valid() == false} while not tracking. */
    public Calibration calibration() {
        Calibration c = calibration;
        boolean valid = c.valid() && mono != null;
        // The description is built here, on the caller's thread, not at every step of the updater.
        String source = valid ? "tracked against CLOCK_MONOTONIC_RAW over a " + Math.round(baselineNanos / 1e6)
                + " ms baseline" : inactiveReason;
        return new Calibration(valid, c.frequencyHz(), c.mult(), c.shift(), c.uncertaintyPpb(), c.counterBase(),
                c.rawBaseNanos(), c.validForNanos(), source);
    }

    /**
     * Whether a bracket is narrow enough to trust: within 1.5x the narrowest of the recent ones (the
     * reference relaxes by 1/64 per step so that a machine that got slower is followed).
     */
    private boolean goodWidth(long width, int line) {
        long ref = narrowest[line];
        if (width < ref) {
            narrowest[line] = width;
            return true;
        }
        narrowest[line] = ref + Math.max(1, ref / 64);
        return width <= ref + ref / 2;
    }

    /** {@link #frequencyPpb}'s answer when fewer than two samples are usable. */
    private static final long NO_SLOPE = Long.MIN_VALUE;

    /**
     * The tracker's error bound now: the largest |MONOTONIC phase error| over its last 32 updates, measured
     * against bracketed kernel reads (each within its bracket's half-width). Reads between updates can drift
     * further by whatever rate change the kernel makes before the next one; adjtimex changes shorten the
     * interval to {@value #FAST_INTERVAL_NANOS} ns for {@link SteeringWatch#SETTLE_NANOS} ns.
     *
     * @return ns, or -1 before the first update
     */
    public long errorBoundNanos() {
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

    /** The last change of the kernel's steered rate the tracker saw through adjtimex, one line. */
    public String lastSteeringChange() {
        return steering.lastChange();
    }

    private static long slewPpb(long errorNanos, long intervalNanos) {
        return Math.round(errorNanos * GAIN * 1e9 / intervalNanos);
    }

    private void record(long err) {
        synchronized (residuals) {
            residuals[(int) (steps % RESIDUALS)] = Math.abs(err);
        }
    }

    private void followOffsets(boolean realtimeWasSet, long errMono) {
        boolean converging = mono == null;
        // Strict bounds on REALTIME - MONOTONIC (real read between two mono reads): they detect a kernel step
        // that the timerfd missed, but their midpoint is no good estimate: a mono/real/mono bracket is 70 to
        // 80 ns wide here and the kernel's reads do not sit at its middle.
        sOffset.offset(ClockId.MONOTONIC.id(), ClockId.REALTIME.id(), realtimeWasSet || converging ? 32 : 4, interval);
        boolean disjoint = interval[0] > realHi || interval[1] < realLo;
        if (realtimeWasSet || disjoint) {
            realLo = interval[0];
            realHi = interval[1];
        } else {
            realLo = Math.max(realLo, interval[0]);
            realHi = Math.min(realHi, interval[1]);
        }
        long c = counter.read();
        long ours = tkMono.convert(c, ClockId.REALTIME) - tkMono.convert(c, ClockId.MONOTONIC);
        boolean outside = ours < realLo || ours > realHi;
        if (converging || realtimeWasSet || outside) {
            // The offset's error is measured the way the lines' errors are (kernel REALTIME around one
            // counter read) minus the MONOTONIC line's own error: then REALTIME is centred in the kernel's
            // brackets exactly as MONOTONIC is. Before publication nobody reads these timekeepers, so the
            // offset is refined freely; afterwards it moves only on a kernel step.
            long offsetError = withinBounds(ours + offsetError(ClockId.REALTIME, errMono), realLo, realHi) - ours;
            if (Math.abs(offsetError) > (converging ? 1 : 0)) {
                tkMono.step(offsetError);
                realtimeSteps++;
            }
        }
        if (!converging && !realtimeWasSet && (steps & 3) != 0) {
            return; // TAI and BOOTTIME offsets change only with kernel events: every 4th step is plenty
        }
        int tai = taiSeconds();
        if (tai != tkMono.taiOffsetSeconds()) {
            tkMono.setTaiOffsetSeconds(tai);
        }
        sOffset.offset(ClockId.MONOTONIC.id(), ClockId.BOOTTIME.id(), converging ? 8 : 2, interval);
        if (interval[0] > bootHi + 1_000 || interval[1] < bootLo - 1_000) {
            rebuild("BOOTTIME - MONOTONIC changed by " + (mid(interval[0], interval[1]) - mid(bootLo, bootHi))
                    + " ns: the machine was suspended");
        } else {
            bootLo = Math.max(bootLo, interval[0]);
            bootHi = Math.min(bootHi, interval[1]);
            if (converging) {
                // Centred as REALTIME is: kernel BOOTTIME around one counter read, minus the MONOTONIC line's
                // own error, within the strict bounds. Before publication only (nobody reads it yet); the
                // build's first estimate, the midpoint of brackets taken while this code still ran
                // interpreted (hundreds of ns wide), had put BOOTTIME 70-100 ns off the kernel's.
                long boot = tkMono.boottimeOffsetNanos();
                long want = Math.max(0, withinBounds(boot + offsetError(ClockId.BOOTTIME, errMono), bootLo, bootHi));
                if (want != boot) {
                    tkMono.setBoottimeOffsetNanos(want);
                }
            }
        }
    }

    /**
     * How far {@code clock}'s offset from MONOTONIC is off, measured the way the lines' errors are: the
     * kernel's {@code clock} around one counter read, minus the MONOTONIC line's own error {@code errMono}.
     */
    private long offsetError(ClockId clock, long errMono) {
        sOffsetClock.take(counter, clock.id(), 32);
        return sOffsetClock.kernel - tkMono.convert(sOffsetClock.counter, clock) - errMono;
    }

    private static int taiSeconds() {
        long real = LinuxTime.clockGettimeNanos(ClockId.REALTIME.id());
        long tai = LinuxTime.clockGettimeNanos(ClockId.TAI.id());
        return (int) Math.round((tai - real) / 1e9);
    }

    /**
     * {@code want}, or the middle of the strict bounds [lo, hi] when it lies outside them: the measurement
     * disagrees with the bounds, and the bounds are the stronger evidence (a clock read between two reads of
     * the other). REALTIME's and BOOTTIME's offsets are centred by this one rule.
     */
    private static long withinBounds(long want, long lo, long hi) {
        return want < lo || want > hi ? mid(lo, hi) : want;
    }

    private static long mid(long lo, long hi) {
        return lo + (hi - lo) / 2;
    }

    private void rebuild(String why) {
        rebuilds++;
        if (++residualFaults > 3) {
            stop("phase errors beyond " + REBUILD_NANOS + " ns kept coming back (" + why + ")");
            return;
        }
        deactivate("re-anchoring on the kernel: " + why);
        build();
    }

    private void stop(String why) {
        deactivate("stopped: " + why);
        stopped = true;
    }

    /**
     * Whether the new timekeepers have caught up with every value readers were given while the kernel served
     * them (the floors): publishing earlier would take a clock back. After a counter jump the old state
     * ran ahead, so the floors sit ahead of the kernel until it passes them.
     */
    private boolean aboveFloors() {
        long c = counter.read();
        for (ClockId clock : new ClockId[] {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI}) {
            if (tkMono.convert(c, clock) < floors[clock.ordinal()]) {
                return false;
            }
        }
        return tkRaw.convert(c, ClockId.MONOTONIC) >= floors[ClockId.MONOTONIC_RAW.ordinal()];
    }

    /** Routes readers to the kernel, never below what the last state could have returned. */
    private void deactivate(String why) {
        Timekeeper m = mono;
        Timekeeper r = raw;
        if (m != null) {
            // First make every fresh read end at one point: an update with zero validity pivots both lines at
            // a counter value c0, after which readFresh serves nothing past c0. A reader that validated an
            // older state read its counter before c0 (see Timekeeper's class comment), so no fast read can
            // ever have returned more than the lines' values at c0: those are the floors. Computing floors
            // from "now" instead would race with readers still on the fast path (measured: 4.5 us back).
            m.setValidityCycles(0);
            r.setValidityCycles(0);
            m.update();
            r.update();
            for (ClockId c : new ClockId[] {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI}) {
                floors[c.ordinal()] = Math.max(floors[c.ordinal()], m.freshCeiling(c));
            }
            floors[ClockId.MONOTONIC_RAW.ordinal()] = Math.max(floors[ClockId.MONOTONIC_RAW.ordinal()],
                    r.freshCeiling(ClockId.MONOTONIC));
        }
        inactiveReason = why;
        sourceChangedSeq++;
        raw = null;
        mono = null; // volatile store after the floors: readers that see null see them
        listener.published(null, null);
    }
}
