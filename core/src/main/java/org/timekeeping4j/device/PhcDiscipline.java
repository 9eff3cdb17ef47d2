package org.timekeeping4j.device;

import java.util.concurrent.locks.LockSupport;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.linux.TimeNamespace;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The single writer behind a {@link FastPtpClock}: a daemon thread that takes a cross timestamp of the PHC against
 * MONOTONIC_RAW ({@link PtpClock#offset(ClockId, int)}: PRECISE, else EXTENDED, else clock_gettime triplets, the
 * narrowest of {@value PtpClock#DEFAULT_SAMPLES} samples), checks it against what the last one claimed, estimates
 * the PHC's rate, steers the timekeeper's adjusted line onto the PHC (the project's {@link NtpAdjuster}: the rate as
 * its frequency, the offset slewed, or stepped past {@value #STEP_NANOS} ns) and publishes a {@link PhcAnchor}.
 *
 * <p><b>Rate and interval.</b> The rate is measured between this cross timestamp and the oldest one kept (at most
 * {@value #WINDOW} of them, within {@value #WINDOW_SPAN_NANOS} ns), its error being the two half-widths over the span.
 * Before two cross timestamps (or after a disruption) nothing is known of it: the error is the PHC's largest
 * adjustment (its max_adj) plus {@value #CRYSTAL_PPB} ppb. The holdover allowance is the part of the recent rate
 * changes that the estimates' errors do not explain, at least {@value #MIN_HOLDOVER_PPB} ppb. The interval is chosen
 * from that stability: long enough that the bound grows by about one cross timestamp's width between two, within
 * {@value #MIN_INTERVAL_NANOS}..{@value #MAX_INTERVAL_NANOS} ns.
 *
 * <p><b>Disruptions.</b> A cross timestamp that finds the PHC outside the last anchor's bound (a step such as
 * ptp4l's first or {@code phc_ctl set}, or a frequency change faster than the allowance) counts a disruption,
 * forgets the rate's history and steps the timekeeper. Reads between the change and this cross timestamp could not
 * know of it. A change that acted only briefly before a cross timestamp moves the PHC too little to be told from
 * noise: one that finds the PHC past half the bound publishes the rate as unknown and takes the next cross timestamp
 * at once, so a change is found by the next cross timestamp or the one after it. A rate since the last cross
 * timestamp that the window's rate and both errors cannot explain keeps only the last one for the rate; one they can
 * explain still widens the rate's error by the difference.
 */
final class PhcDiscipline implements Runnable {

    /** How often the timekeeper is updated between cross timestamps, ns (the kernel's tick at HZ=100). */
    static final long TICK_NANOS = 10_000_000L;
    /** The shortest interval between cross timestamps (fbclock publishes every 10 ms). */
    static final long MIN_INTERVAL_NANOS = 10_000_000L;
    /** The longest interval between cross timestamps. */
    static final long MAX_INTERVAL_NANOS = 1_000_000_000L;
    /** Cross timestamps kept for the rate. */
    static final int WINDOW = 16;
    /** The longest span the rate is measured over, ns. */
    static final long WINDOW_SPAN_NANOS = 2_000_000_000L;
    /** The least allowance for the PHC's rate changing after its estimate, ppb. */
    static final double MIN_HOLDOVER_PPB = 20;
    /** The most a kernel steers a clock's frequency (NTP's 500 ppm), ppb. */
    static final double MAX_STEER_PPB = 500_000;
    /** A crystal's tolerance, added to max_adj while the rate is unknown, ppb. */
    static final double CRYSTAL_PPB = 100_000;
    /** An offset beyond this is stepped rather than slewed, ns. */
    static final long STEP_NANOS = 1_000_000L;
    /** The bound's growth between two cross timestamps aimed at when none is narrower, ns. */
    private static final long MIN_GROWTH_NANOS = 50;

    private final PtpClock phc;
    private final Timekeeper timekeeper;
    private final NtpAdjuster adjuster;
    private final double unknownRatePpb;

    // The cross timestamps kept, oldest at (head - count) mod WINDOW; the discipline thread's own.
    private final long[] raws = new long[WINDOW];
    private final long[] phcs = new long[WINDOW];
    private final long[] halves = new long[WINDOW];
    private final double[] rates = new double[WINDOW];
    private final double[] rateErrors = new double[WINDOW];
    private int head;
    private int count;
    private long generation;
    private long disruptions;
    private long intervalNanos = MIN_INTERVAL_NANOS;

    /** The newest anchor: written by the discipline thread only, read by any reader. */
    private final PhcAnchor.Slot anchor = new PhcAnchor.Slot();
    /** Why the last cross timestamp failed, or null. */
    private volatile String failure;
    private volatile boolean closed;

    PhcDiscipline(PtpClock phc, Timekeeper timekeeper, NtpAdjuster adjuster) {
        this.phc = phc;
        this.timekeeper = timekeeper;
        this.adjuster = adjuster;
        // A PHC that nothing here adjusts (max_adj 0: ptp_vmclock, ptp_kvm) follows a clock the host may steer by
        // up to the kernel's 500 ppm; a crystal's tolerance on top.
        this.unknownRatePpb = Math.max(Math.max(0, phc.capabilities().maxAdjustmentPpb()), MAX_STEER_PPB) + CRYSTAL_PPB;
    }

    /** {@return the newest anchor, or null before the first cross timestamp} */
    PhcAnchor anchor() {
        return anchor.read();
    }

    /** {@return why the last cross timestamp failed, or null} */
    String failure() {
        return failure;
    }

    void close() {
        closed = true;
    }

    /**
     * Every {@value #TICK_NANOS} ns a timekeeper update (the adjuster's slew is accounted per update, as the kernel's
     * per tick), and a cross timestamp once the interval has passed since the last one.
     */
    @Override
    public void run() {
        long lastCross = Clocks.nanos(ClockId.MONOTONIC_RAW);
        while (!closed) {
            LockSupport.parkNanos(TICK_NANOS);
            if (closed) {
                break;
            }
            long now = Clocks.nanos(ClockId.MONOTONIC_RAW);
            if (now - lastCross < intervalNanos) {
                timekeeper.update();
                continue;
            }
            lastCross = now;
            try {
                discipline();
                failure = null;
            } catch (RuntimeException e) {
                // The device went away or refused: the anchor ages, and reads past the age limit are unbounded.
                failure = e.getMessage();
                timekeeper.update();
            } catch (Error e) {
                failure = "the discipline thread died: " + e; // reads turn unbounded at the age limit
                throw e;
            }
        }
    }

    /** One cross timestamp: measure, judge the last anchor's claim, estimate the rate, steer, publish. */
    void discipline() {
        PtpOffset o = phc.offset(ClockId.MONOTONIC_RAW, PtpClock.DEFAULT_SAMPLES);
        // The driver's cross timestamps read the kernel's own MONOTONIC_RAW; clock_gettime (triplets, and every read)
        // adds this process's time namespace offset.
        long raw = o.systemNanos() + (o.method() == PtpClock.Method.CLOCK_GETTIME ? 0 : namespaceOffset());
        long phcNow = o.phcNanos();
        PhcAnchor last = anchor.read();
        // Half the width in PHC ns (the PHC runs at 1 + rate against RAW), +2 for the reading's and predict's rounding.
        double scale = 1 + (last == null ? unknownRatePpb : Math.abs(last.ratePpb()) + last.rateErrorPpb()) * 1e-9;
        long half = (long) Math.ceil((o.delayNanos() + 1) / 2 * scale) + 2;
        boolean disrupted = false;
        boolean moving = false;
        if (last != null) {
            long age = raw - last.raw();
            long allowed = last.bound(Math.max(age, 0)) + half;
            long innovation = Math.abs(phcNow - last.predict(raw));
            if (age <= 0 || innovation > allowed) {
                disrupted = true;
                disruptions++;
                count = 0; // the rate before the change says nothing of the rate after it
            } else if (innovation > allowed / 2) {
                // A change that acted only briefly before this cross timestamp shows as little here: the rate is
                // unknown until the next one, which comes at once.
                moving = true;
                count = Math.min(count, 1);
            }
        }
        keep(raw, phcNow, half);
        double rate = 0;
        double rateError = unknownRatePpb;
        int oldest = oldestWithin(raw);
        if (oldest >= 0) {
            long span = raw - raws[oldest];
            rate = ((phcNow - phcs[oldest]) - span) * 1e9 / span;
            rateError = (half + halves[oldest] + 1) * 1e9 / span;
            int previous = Math.floorMod(head - 2, WINDOW);
            if (previous != oldest) {
                // The rate over the window against the rate since the last one: a difference their errors do not
                // explain is a change within the window, which the window's average would hide.
                long shortSpan = raw - raws[previous];
                double recent = ((phcNow - phcs[previous]) - shortSpan) * 1e9 / shortSpan;
                double recentError = (half + halves[previous] + 1) * 1e9 / shortSpan;
                if (Math.abs(recent - rate) > rateError + recentError) {
                    rate = recent;
                    rateError = recentError;
                    count = 2;
                } else {
                    rateError += Math.abs(recent - rate); // what the window's average may hide of a recent rate
                }
            }
        } else if (last != null && !disrupted) {
            rate = last.ratePpb();
        }
        if (moving) {
            rateError = Math.max(rateError, unknownRatePpb);
        }
        int newest = Math.floorMod(head - 1, WINDOW);
        rates[newest] = rate;
        rateErrors[newest] = rateError;
        double holdover = holdover();
        steer(raw, phcNow, rate, last == null || disrupted);
        intervalNanos = moving || disrupted ? MIN_INTERVAL_NANOS : Math.clamp(Math.round(
                Math.max(half, MIN_GROWTH_NANOS) / ((rateError + holdover) * 1e-9)), MIN_INTERVAL_NANOS, MAX_INTERVAL_NANOS);
        anchor.publish(new PhcAnchor(raw, phcNow, half, rate, rateError, holdover, o.method(), intervalNanos,
                ++generation, disruptions));
    }

    private void keep(long raw, long phcNow, long half) {
        raws[head] = raw;
        phcs[head] = phcNow;
        halves[head] = half;
        head = (head + 1) % WINDOW;
        count = Math.min(count + 1, WINDOW);
    }

    /** The oldest kept cross timestamp within the span of {@code raw}, other than the newest; -1 if none. */
    private int oldestWithin(long raw) {
        for (int i = count; i >= 2; i--) {
            int at = Math.floorMod(head - i, WINDOW);
            if (raw - raws[at] <= WINDOW_SPAN_NANOS) {
                return at;
            }
        }
        return -1;
    }

    /**
     * The allowance for the rate changing: the largest change between successive kept estimates beyond what their
     * errors explain, at least {@value #MIN_HOLDOVER_PPB} ppb.
     */
    private double holdover() {
        double most = MIN_HOLDOVER_PPB;
        for (int i = 1; i < count; i++) {
            int a = Math.floorMod(head - i, WINDOW);
            int b = Math.floorMod(head - i - 1, WINDOW);
            double unexplained = Math.abs(rates[a] - rates[b]) - rateErrors[a] - rateErrors[b];
            most = Math.max(most, unexplained);
        }
        return most;
    }

    /** The timekeeper onto the PHC: its frequency the PHC's rate, the offset slewed (or stepped). */
    private void steer(long raw, long phcNow, double rate, boolean step) {
        long offset = phcNow - timekeeper.convert(raw, ClockId.REALTIME);
        adjuster.setFrequencyPpb(Math.clamp(Math.round(rate), -NtpAdjuster.MAX_FREQUENCY_PPB,
                NtpAdjuster.MAX_FREQUENCY_PPB));
        if (step || Math.abs(offset) > STEP_NANOS) {
            adjuster.slew(0);
            timekeeper.step(offset);
        } else {
            adjuster.slew(offset);
        }
        timekeeper.update();
    }

    /** This process's time namespace MONOTONIC offset (which MONOTONIC_RAW shares), ns; 0 outside one. */
    static long namespaceOffset() {
        try {
            return TimeNamespace.offsets().monotonicNanos();
        } catch (java.io.IOException e) {
            return 0; // no time namespaces in this kernel: no offset
        }
    }
}
