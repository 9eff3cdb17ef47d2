package org.timekeeping4j.timekeeper;

import java.lang.invoke.VarHandle;

import org.timekeeping4j.adjust.ClockAdjustment;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.MultShift;

/**
 * The single writer of a {@link Timekeeper} (kernel/time/timekeeping.c's timekeeping_advance,
 * do_settimeofday64, timekeeping_inject_offset, ...). Every operation holds this object's monitor and has
 * the same three steps: {@link #begin()} pulls from the adjustment, opens the odd window, reads the counter
 * and accumulates both lines to it; the operation changes the next state; {@link #publish} arms the leap
 * second and publishes the state.
 *
 * <h2>Publication: a seqlock over a ring, not a seqcount latch</h2>
 * The writer builds the next state in the ring slot after the newest (the shadow copy: no reader uses it),
 * then publishes it by moving the sequence from odd to the next even value. Readers copy the newest state's
 * fields to locals, read the counter, and validate that the sequence did not change; while it is odd they
 * spin. The odd window covers only the writer's own counter read, the accumulation and the new state's
 * stores: its ring slot's fields. The slow parts (pulling from the adjustment, which locks)
 * happen before it. So readers are lock-free, and
 * wait-free except when they overlap that window.
 *
 * <p>Why not the kernel's fast-timekeeper latch (two copies, readers never wait)? Because a latch reader
 * may finish on the old copy after the new one is published, with a counter value read after the
 * writer's: if the update lowered the slope, that old-slope value lies above what the next reader
 * computes with the new copy, and the clock goes backwards (the kernel documents exactly this for
 * ktime_get_mono_fast_ns). Monotonicity is worth the rare spin.
 *
 * <h2>Monotonicity across an update (every clock, any slope change)</h2>
 * Let the writer read the counter value {@code c0} inside its odd window and pivot both lines there:
 * it accumulates {@code c0 - cycle_last} with the old mult (128-bit, exact) and applies the new mult from
 * {@code c0} on ({@link TkReadBase#applyAdjustment}), so {@code new(c0) == old(c0)} exactly, and
 * the offsets are unchanged by a plain update.
 * <ol>
 *   <li>A reader that validated the old state read its counter before its re-read of the sequence, which
 *       did not see the odd value, which was stored (volatile, then a full fence) before the writer read
 *       {@code c0}. So its counter value {@code c1 <= c0}, and it returned {@code old(c1) <= old(c0)}.</li>
 *   <li>A reader that got the new state acquired the even sequence stored (release) after the writer's
 *       counter read, and reads its counter afterwards: {@code c2 >= c0}, so it returns
 *       {@code new(c2) >= new(c0)}.</li>
 * </ol>
 * Hence every value returned before an update is at most {@code old(c0) = new(c0)}, which is at most any
 * value returned after it, whatever the sign of the slope change. COARSE clocks return the line's value
 * at the last update's {@code c0}, a non-decreasing sequence. This needs a counter whose reads are
 * ordered with the surrounding loads ({@link Clocksource#isOrdered()}: lfence;rdtsc, isb;mrs, or a memory
 * counter read with a volatile load) and that does not run backwards (a counter value before cycle_last
 * is clamped to delta 0, so a jittery counter cannot go below the last update either). Deliberate
 * changes are not updates: a step or a leap second moves REALTIME and TAI by design, and never
 * MONOTONIC, BOOTTIME or MONOTONIC_RAW.
 *
 * <h2>How often to update: max_idle</h2>
 * {@link #maxIdleNanos} is half the time to max_cycles at the largest mult the adjustment may set
 * (the kernel's margin), and at most half the time to half the counter's wrap. Beyond max_cycles a read
 * takes the slower 128-bit path but stays exact; beyond half the wrap (89 s for a 32-bit 24 MHz counter)
 * a counter value is indistinguishable from one before cycle_last and the clocks stand still until the
 * next update.
 */
final class TimekeeperWriter {

    private static final long NANOS_PER_SECOND = Timekeeper.NANOS_PER_SECOND;
    private static final long NANOS_PER_DAY = 86_400L * NANOS_PER_SECOND;
    /** Largest adjustment of the adjusted line: 500 ppm frequency plus 500 ppm slew. */
    private static final long MAX_TOTAL_ADJUSTMENT_PPB = 1_000_000;

    private final Timekeeper tk;
    private final Clocksource clocksource;
    private final ClockAdjustment adjustment;
    private final long mask;
    private final long halfMask;
    private final int shift;
    private final long rawMult;
    private final TimekeeperState[] ring;
    private final int ringMask;
    /** See {@link Timekeeper#maxIdleNanos()} and "How often to update" above. */
    final long maxIdleNanos;

    // Writer state, guarded by this object's monitor.
    /** The writer's copy of the timekeeper's sequence. */
    private long writerSeq;
    private long lastAdjustCycles;
    private long adjustedPpb;
    private boolean suspended;
    private long suspendCycles;

    // One operation's pull and pivot: set by begin(), used by the operation and publish().
    /** The counter value the operation pivots on, read inside the odd window (cycle_last of the next state). */
    private long c0;
    /** The adjusted line's mult from the adjustment's frequency. */
    private long monoMult;
    /** The adjustment's pending leap second ({@link ClockAdjustment#LEAP_NONE} for none). */
    private int pendingLeap;
    /** The leap second begin() folded into offs_real because its point had passed; LEAP_NONE if none. */
    private int appliedLeap;

    /** Publishes the first state (generation 0) of {@code tk}, whose conversion parameters and ring are set. */
    TimekeeperWriter(Timekeeper tk, TimekeeperBuilder b) {
        this.tk = tk;
        this.clocksource = tk.clocksource();
        this.adjustment = b.adjustment;
        this.mask = tk.mask;
        this.halfMask = tk.halfMask;
        this.shift = tk.shift();
        this.rawMult = tk.rawMult();
        this.ring = tk.ring;
        this.ringMask = tk.ringMask;
        long maxMult = rawMult + rawMult * MAX_TOTAL_ADJUSTMENT_PPB / NANOS_PER_SECOND + 1;
        long cyclesBound = maxCycles(maxMult);
        if (Long.compareUnsigned(cyclesBound, halfMask) > 0) {
            cyclesBound = halfMask;
        }
        long minMult = rawMult - rawMult * MAX_TOTAL_ADJUSTMENT_PPB / NANOS_PER_SECOND;
        this.maxIdleNanos = MultShift.wide(cyclesBound, minMult, shift, 0) >>> 1;
        long now = b.anchored ? b.anchorCounter & mask : clocksource.read();
        TimekeeperState s = ring[0];
        s.mono.cycleLast = now;
        s.raw.cycleLast = now;
        s.mono.mult = rawMult;
        s.raw.mult = rawMult;
        s.mono.base = b.monotonicNanos;
        s.raw.base = b.monotonicNanos;
        s.offsReal = b.realtimeNanos - b.monotonicNanos;
        s.offsTai = s.offsReal + b.taiOffsetSeconds * NANOS_PER_SECOND;
        s.offsBoot = b.boottimeOffsetNanos;
        s.leapMono = Long.MAX_VALUE;
        s.maxCycles = maxCycles(rawMult);
        this.lastAdjustCycles = now;
        // Pairs with the readers' getAcquire in TimekeeperReader.readBegin(); every store a reader depends on comes first.
        Timekeeper.SEQ.setRelease(tk, 0L);
    }

    /** The longest delta whose product with {@code mult}, plus a remainder below 2^shift, fits 64 bits. */
    private long maxCycles(long mult) {
        if (mult == 0) {
            return -1L;
        }
        return Long.divideUnsigned(-1L - ((1L << shift) - 1), mult);
    }

    // ------------------------------------------------------------------------------------------------
    // Operations: begin(), the operation's change to the next state, publish()

    synchronized void update() {
        publish(begin());
    }

    synchronized void step(long deltaNanos) {
        TimekeeperState next = begin();
        next.offsReal += deltaNanos;
        next.offsTai += deltaNanos;
        next.clockWasSetSeq++;
        publish(next);
    }

    synchronized void setRealtime(long epochNanos) {
        TimekeeperState next = begin();
        long mono = next.mono.base;
        long realNow = mono + next.offsReal + (mono >= next.leapMono ? next.leapStepNs : 0);
        next.offsReal += epochNanos - realNow;
        next.offsTai += epochNanos - realNow;
        next.clockWasSetSeq++;
        publish(next);
    }

    synchronized void setTaiOffsetSeconds(int seconds) {
        TimekeeperState next = begin();
        next.offsTai = next.offsReal + seconds * NANOS_PER_SECOND;
        publish(next);
    }

    synchronized void setBoottimeOffsetNanos(long nanos) {
        TimekeeperState next = begin();
        next.offsBoot = nanos;
        publish(next);
    }

    synchronized void suspend() {
        if (suspended) {
            return;
        }
        TimekeeperState next = begin();
        next.mono.mult = 0;
        next.raw.mult = 0;
        suspended = true;
        suspendCycles = c0;
        publish(next);
    }

    /** Leaves suspend, the time suspended measured on the counter at the raw rate. */
    synchronized void resume() {
        requireSuspended();
        TimekeeperState next = begin();
        wake(next, MultShift.wide((c0 - suspendCycles) & mask, rawMult, shift, 0));
    }

    /** Leaves suspend, the time suspended given ({@code sleptNanos >= 0}, checked by the caller). */
    synchronized void resume(long sleptNanos) {
        requireSuspended();
        wake(begin(), sleptNanos);
    }

    private void requireSuspended() {
        if (!suspended) {
            throw new IllegalStateException("not suspended");
        }
    }

    private void wake(TimekeeperState next, long slept) {
        next.mono.mult = monoMult;
        next.raw.mult = rawMult;
        next.offsBoot += slept;
        next.offsReal += slept;
        next.offsTai += slept;
        next.clockWasSetSeq++;
        suspended = false;
        lastAdjustCycles = c0;
        publish(next);
    }

    /**
     * Pulls from the adjustment, opens the window and accumulates both lines to the counter read inside it
     * ({@link #c0}); a leap second whose point has passed is folded. Returns the next state for the
     * operation to change; the window stays open until {@link #publish}.
     */
    private TimekeeperState begin() {
        // Outside the odd window: pull from the adjustment (it locks; readers must not spin on that).
        // The slew it debits is measured to this counter value rather than to the pivot below; the
        // difference is the window's width times the slew rate, far below a ns.
        long pre = clocksource.read();
        long elapsed = suspended ? 0 : MultShift.wide((pre - lastAdjustCycles) & mask, rawMult, shift, 0);
        if (Long.compareUnsigned((pre - lastAdjustCycles) & mask, halfMask) > 0) {
            elapsed = 0;
        } else {
            lastAdjustCycles = pre;
        }
        long ppb = adjustment.frequencyPpb(elapsed);
        ppb = Math.max(-MAX_TOTAL_ADJUSTMENT_PPB, Math.min(MAX_TOTAL_ADJUSTMENT_PPB, ppb));
        adjustedPpb = ppb;
        pendingLeap = adjustment.pendingLeap();
        // mult for the adjusted line: rawMult * (1 + ppb / 1e9), rounded to nearest.
        monoMult = rawMult + Math.floorDiv(rawMult * ppb + NANOS_PER_SECOND / 2, NANOS_PER_SECOND);
        appliedLeap = ClockAdjustment.LEAP_NONE;
        long g = writerSeq >>> 1;
        TimekeeperState cur = ring[(int) g & ringMask];
        TimekeeperState next = ring[(int) (g + 1) & ringMask];

        beginWrite();
        long now = clocksource.read();
        next.copyFrom(cur);
        long offset = (now - cur.mono.cycleLast) & mask;
        if (Long.compareUnsigned(offset, halfMask) > 0) {
            offset = 0; // the counter reads before cycle_last (jitter): no time has passed, keep cycle_last
            now = cur.mono.cycleLast;
        }
        if (!suspended) {
            next.mono.applyAdjustment(offset, monoMult);
        }
        next.mono.accumulate(offset);
        next.raw.accumulate(offset);
        next.mono.cycleLast = now;
        next.raw.cycleLast = now;
        c0 = now;
        long mono = next.mono.base; // the value of MONOTONIC at c0 (xtimeNsec < 1 ns)

        // A leap second whose point has passed is folded into offsReal (readers have been applying it
        // since the point through leapMono, so the value does not change here).
        if (next.leapMono != Long.MAX_VALUE && mono >= next.leapMono) {
            appliedLeap = next.leapStepNs < 0 ? ClockAdjustment.LEAP_INSERT : ClockAdjustment.LEAP_DELETE;
            next.offsReal += next.leapStepNs;
            next.leapMono = Long.MAX_VALUE;
            next.leapStepNs = 0;
            next.clockWasSetSeq++;
        }
        return next;
    }

    /** Arms (or disarms) the pending leap second in {@code next}, publishes it and closes the window. */
    private void publish(TimekeeperState next) {
        if (appliedLeap == ClockAdjustment.LEAP_NONE) {
            // Arm (or disarm) the leap second at the next UTC midnight of REALTIME.
            if (pendingLeap == ClockAdjustment.LEAP_NONE) {
                next.leapMono = Long.MAX_VALUE;
                next.leapStepNs = 0;
            } else {
                long real = next.mono.base + next.offsReal;
                long midnight = Math.floorDiv(real, NANOS_PER_DAY) * NANOS_PER_DAY + NANOS_PER_DAY;
                // Insert: at midnight REALTIME goes back to 23:59:59 (that second is repeated).
                // Delete: at 23:59:59 REALTIME goes on to 00:00:00 (that second is skipped).
                long point = pendingLeap == ClockAdjustment.LEAP_INSERT ? midnight : midnight - NANOS_PER_SECOND;
                if (real >= point) {
                    point += NANOS_PER_DAY;
                }
                next.leapMono = point - next.offsReal;
                next.leapStepNs = pendingLeap == ClockAdjustment.LEAP_INSERT ? -NANOS_PER_SECOND : NANOS_PER_SECOND;
            }
        }
        next.maxCycles = maxCycles(Math.max(next.mono.mult, next.raw.mult));
        next.generation = (writerSeq >>> 1) + 1; // writerSeq is odd here: 2 * (the newest's generation) + 1
        endWrite(next);
        if (appliedLeap != ClockAdjustment.LEAP_NONE) {
            adjustment.leapApplied(appliedLeap);
        }
    }

    /** Opens the writer's window: readers that overlap it retry. */
    private void beginWrite() {
        writerSeq++;
        Timekeeper.SEQ.setVolatile(tk, writerSeq);
        // Orders the odd store before everything after it, loads included: the counter read that picks the
        // pivot c0 and the stores into the next slot. Pairs with the readers' acquireFence in
        // TimekeeperReader.readRetry(): a reader whose re-read misses the odd value read its counter before our c0.
        VarHandle.fullFence();
    }

    /** Publishes the next slot. */
    private void endWrite(TimekeeperState next) {
        writerSeq++;
        // Release: the next slot's stores and our counter read happen before the even value is visible.
        // Pairs with the readers' getAcquire in TimekeeperReader.readBegin().
        Timekeeper.SEQ.setRelease(tk, writerSeq);
    }

    // ------------------------------------------------------------------------------------------------
    // The writer's view

    synchronized long adjustedPpb() {
        return adjustedPpb;
    }

    synchronized boolean isSuspended() {
        return suspended;
    }

    /** The newest state, for the writer-side introspection (the writer's monitor keeps it stable). */
    synchronized TimekeeperState newest() {
        return ring[(int) (writerSeq >>> 1) & ringMask];
    }
}
