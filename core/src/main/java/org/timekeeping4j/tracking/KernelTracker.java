package org.timekeeping4j.tracking;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.TimerFd;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.timekeeper.ConvertedNanos;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * A user-space timekeeper that tracks the kernel's clocks at counter speed: the vDSO of timekeeping4j.
 *
 * <h2>How it follows the kernel</h2>
 * Two {@link Timekeeper}s read the same ordered hardware counter: the adjusted one's line follows
 * CLOCK_MONOTONIC (REALTIME, BOOTTIME and TAI are offsets of it, as in the kernel), the raw one's line
 * follows CLOCK_MONOTONIC_RAW. A daemon thread, the updater, samples the kernel at every step: the
 * narrowest of several brackets (clock_gettime, counter, clock_gettime: the shape of a user's check, with
 * nothing else inside; see {@link Sample}) gives a counter value and the kernel's time at it within half
 * the bracket. From these the {@link TrackingPolicy} estimates each line's frequency over a long baseline
 * ({@link SampleHistory}), slews the phase error away over the next interval, follows the offsets
 * ({@link OffsetFollower}) and chooses the interval. This class is the mechanism around it: the updater
 * thread, the timerfd, and the hand-over to the {@link Publication}, which owns who serves now, the
 * floors, and the routing of each clock to its line.
 *
 * <h2>Kernel events</h2>
 * <ul>
 *   <li>REALTIME set (clock_settime, ADJ_SETOFFSET, leap second, resume): a timerfd armed with
 *       TFD_TIMER_CANCEL_ON_SET wakes the updater at once; it re-measures the offset and steps REALTIME
 *       and TAI (MONOTONIC untouched; the clock-was-set sequence moves).</li>
 *   <li>Suspend/resume, or any jump of the counter against the kernel beyond
 *       {@link TrackingPolicy#REBUILD_NANOS}: the timekeepers are rebuilt, anchored on the kernel again.
 *       Readers meanwhile use the kernel.</li>
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

    private final Clocksource counter;
    private final Thread updater;
    private final TimerFd realtimeSet; // null where timerfd is refused
    private final String realtimeSetProblem;
    private final Publication publication;
    private final TrackingPolicy policy;
    /** Set by close() or a stop; read by the updater's loop and by awaitTracking (volatile: any thread). */
    private volatile boolean stopped;
    private volatile long updaterCpuNanos;

    /**
     * Starts tracking on {@code counter} (an ordered hardware counter whose frequency is calibrated within
     * 100 ppm), publishing into a publication of its own. Returns at once; readers use the kernel until the
     * first state has converged ({@link TrackingPolicy#CONVERGED_STEPS} steps within its bound, at the fast
     * phase's interval, after the sampling code's warm-up; {@link #awaitTracking} waits for it).
     */
    public static KernelTracker start(Clocksource counter) {
        return start(counter, new Publication());
    }

    /**
     * As {@link #start(Clocksource)}, publishing into {@code publication}: the process-wide fast path owns one
     * (with its timekeeper pages to mirror into) and reads from it directly.
     */
    public static KernelTracker start(Clocksource counter, Publication publication) {
        KernelTracker t = new KernelTracker(counter, publication);
        t.updater.start();
        return t;
    }

    private KernelTracker(Clocksource counter, Publication publication) {
        this.counter = Objects.requireNonNull(counter);
        this.publication = Objects.requireNonNull(publication);
        this.policy = new TrackingPolicy(counter, new LinuxKernel());
        TimerFd fd = null;
        String problem = null;
        try {
            fd = TimerFd.watchRealtimeSet();
        } catch (ErrnoException e) {
            problem = "timerfd refused (" + e.getMessage() + "): REALTIME steps are seen at the next update";
        }
        this.realtimeSet = fd;
        this.realtimeSetProblem = problem;
        this.updater = Thread.ofPlatform().daemon().name("timekeeping4j-tracker").unstarted(this::run);
    }

    // ------------------------------------------------------------------------------------------------
    // Readers: the publication's

    /**
     * The clock's value: from the user-space timekeeper when it is tracking and fresh, else from the kernel
     * (never below what a fast read could have returned). REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI.
     *
     * @throws IllegalArgumentException for any other clock (the tracker serves the counter clocks only)
     */
    public long nanos(ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        if (c == null) {
            throw new IllegalArgumentException("the tracker serves " + Arrays.toString(CounterClock.values())
                    + ", not " + clock);
        }
        return publication.nanos(c);
    }

    /**
     * Converts a counter value read in the last seconds to what {@link #nanos} returned at that counter
     * value, through the timekeepers' parameter history.
     *
     * @throws IllegalStateException while the tracker is not tracking (nothing to convert with)
     */
    public long convert(long counterValue, ClockId clock) {
        return publication.convert(counterValue, clock);
    }

    /** Converts with the full result (history flag, clock-was-set sequence); allocation-free. */
    public boolean convert(long counterValue, ClockId clock, ConvertedNanos into) {
        return publication.convert(counterValue, clock, into);
    }

    /** The counter this tracker reads. */
    public Clocksource counter() {
        return counter;
    }

    /**
     * The timekeeper serving {@code clock} now, or null while the kernel serves it (always, for a clock no counter
     * read serves).
     */
    public Timekeeper timekeeper(ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        return c != null ? publication.timekeeper(c) : null;
    }

    /** True while reads are served from the counter. */
    public boolean isTracking() {
        return publication.isServing();
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
        boolean tracking = publication.isServing();
        return new Status(tracking, tracking ? "tracking" : publication.reason(), policy.steps(),
                policy.lastMonoError(), policy.lastRawError(), policy.monoPpb(), policy.rawPpb(),
                policy.realtimeSteps(), policy.rebuilds(), updaterCpuNanos, realtimeSetProblem);
    }

    /**
     * The raw line's calibration after the last update, or null before the first; it serves only while
     * {@link #isTracking()}.
     */
    public RawLine rawLine() {
        return policy.rawLine();
    }

    /**
     * The tracker's error bound now: the largest |MONOTONIC phase error| over its last 32 updates, measured
     * against bracketed kernel reads (each within its bracket's half-width). Reads between updates can drift
     * further by whatever rate change the kernel makes before the next one; adjtimex changes hold the
     * interval at its floor, {@value TrackingPolicy#INTERVAL_NANOS} ns, for {@link SteeringWatch#SETTLE_NANOS} ns.
     *
     * @return ns, or -1 before the first update
     */
    public long errorBoundNanos() {
        return policy.errorBoundNanos();
    }

    /** The last change of the kernel's steered rate the tracker saw through adjtimex, one line. */
    public String lastSteeringChange() {
        return policy.lastSteeringChange();
    }

    /** Waits until tracking (or stopped); true if tracking. */
    public boolean awaitTracking(long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!publication.isServing() && !stopped && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L);
        }
        return publication.isServing();
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
            policy.warmUp(() -> stopped);
            policy.build();
            while (!stopped) {
                long intervalNanos = policy.nextInterval();
                boolean set = waitInterval(intervalNanos);
                if (stopped) {
                    break;
                }
                step(set, intervalNanos);
                updaterCpuNanos = ClockGettimeStub.clockGettimeNanos(ClockId.THREAD_CPUTIME_ID.id());
            }
        } catch (RuntimeException | Error e) {
            publication.retire("the updater failed: " + e);
        } finally {
            if (publication.isServing()) {
                publication.retire("stopped");
            }
        }
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

    /** One step of the policy, and what it asks: publish the converged pair, rebuild, or stop. */
    private void step(boolean realtimeWasSet, long intervalNanos) {
        switch (policy.step(realtimeWasSet, intervalNanos, publication.isServing())) {
            case CONVERGED -> {
                if (publication.publish(policy.adjusted(), policy.raw())) {
                    policy.published();
                }
            }
            case REBUILD -> {
                publication.retire("re-anchoring on the kernel: " + policy.why());
                policy.build();
            }
            case STOP -> {
                publication.retire("stopped: " + policy.why());
                stopped = true;
            }
            case UPDATED -> { }
        }
    }
}
