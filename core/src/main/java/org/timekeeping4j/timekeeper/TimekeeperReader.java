package org.timekeeping4j.timekeeper;

import static org.timekeeping4j.timekeeper.Timekeeper.SEQ;

import java.lang.invoke.VarHandle;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.MultShift;

/**
 * The read side of a {@link Timekeeper}'s seqlock, in Java: the current time of any projection, a counter value
 * read earlier converted with the state in force then (the history), clock-was-set. The writer's side, and the
 * argument that every clock stays monotonic across an update, are in {@link TimekeeperWriter}.
 *
 * <p>Static methods taking the timekeeper, as the kernel's functions take a struct timekeeper: no object
 * between a reader and the sequence, whose load must be the only one ahead of the counter read (see
 * {@link #read}). Every read copies the fields it needs to locals between {@link #readBegin} and
 * {@link #readRetry}, and computes after the loop; none allocates.
 *
 * <h2>Conversion on the read path</h2>
 * {@code delta = (now - cycle_last) & mask}; a delta in the upper half of the mask is a counter value
 * before cycle_last (a jittery or unsynchronised counter) and becomes 0, the x86 vDSO's clamp; a delta
 * above max_cycles is multiplied on 128 bits ({@link MultShift#wide}) instead of overflowing.
 */
final class TimekeeperReader {

    private TimekeeperReader() {
    }

    /**
     * The seqlock reader in Java, over the ring (every clocksource; the COARSE and TAI-offset projections).
     * Copies the fields to locals, reads the counter, validates, and only then converts (the kernel's
     * do_hres: the arithmetic stays outside the retry loop).
     */
    static long read(Timekeeper tk, Projection p) {
        boolean counter = p.counter();
        long s, cycleLast, mult, xtime, base, maxCycles, offset, leapMono, leapStep, now;
        do {
            s = readBegin(tk);
            // The counter is read right after the sequence, before the state's fields. An ordered read
            // (rdtscp, isb;mrs) waits for every earlier load to complete: with only the sequence load before
            // it, the read does not wait for the ring -> state -> line chain of dependent loads (a few ns a
            // read: docs/PERFORMANCE.md). The fields are validated by the sequence re-read all the same, and the
            // counter still comes after the acquire of s, which is what the monotonicity argument needs.
            now = counter ? tk.clocksource.read() : 0;
            TimekeeperState st = tk.ring[(int) (s >>> 1) & tk.ringMask];
            TkReadBase line = p.line(st);
            cycleLast = line.cycleLast;
            mult = line.mult;
            xtime = line.xtimeNsec;
            base = line.base;
            maxCycles = st.maxCycles;
            offset = p.offset(st);
            leapMono = st.leapMono;
            leapStep = st.leapStepNs;
        } while (readRetry(tk, s));
        if (!counter) {
            now = cycleLast; // COARSE: the line's value at the last update
        }
        long delta = (now - cycleLast) & tk.mask;
        if (Long.compareUnsigned(delta, tk.halfMask) > 0) {
            delta = 0; // counter before cycle_last: clamp, as the x86 vDSO does
        }
        long ns = Long.compareUnsigned(delta, maxCycles) <= 0
                ? (xtime + delta * mult) >>> tk.shift
                : MultShift.wide(delta, mult, tk.shift, xtime);
        return p.project(base + ns, offset, leapMono, leapStep);
    }

    /**
     * Starts a read of the published state (the kernel's read_seqcount_begin): the sequence once it is even.
     * The caller copies what it needs to locals and then asks {@link #readRetry} whether to start over.
     */
    static long readBegin(Timekeeper tk) {
        for (;;) {
            // Pairs with the writer's SEQ.setRelease in TimekeeperWriter.endWrite(): seeing the even value makes
            // the state it published (all stores before that release) visible to the caller's loads after this.
            long s = (long) SEQ.getAcquire(tk);
            if ((s & 1) == 0) {
                return s;
            }
            Thread.onSpinWait(); // the writer is inside its window: its counter read is the pivot we must not pass
        }
    }

    /** {@return whether the read begun at {@code s} must start over (read_seqcount_retry)} */
    static boolean readRetry(Timekeeper tk, long s) {
        // Orders the caller's field loads and counter read before the sequence re-read below. Pairs with the
        // writer's fullFence after its odd store in TimekeeperWriter.beginWrite(): if the re-read still sees s,
        // no store of the next state was visible to us and our counter read preceded the writer's.
        VarHandle.acquireFence();
        return (long) SEQ.getVolatile(tk) != s;
    }

    /**
     * Converts {@code counter} with the state in force at it (see {@link Timekeeper#convert(long, ClockId,
     * ConvertedNanos)}), and fills {@code into} unless it is null.
     */
    static long convert(Timekeeper tk, long counter, Projection p, ConvertedNanos into) {
        long s, cycleLast, mult, xtime, base, maxCycles, offset, leapMono, leapStep, generation;
        int wasSet;
        boolean within;
        do {
            s = readBegin(tk);
            long g = s >>> 1;
            TimekeeperState st = tk.ring[(int) g & tk.ringMask];
            long newest = st.mono.cycleLast;
            long before = (newest - counter) & tk.mask; // how far the counter value lies before the newest state
            within = true;
            if (before != 0 && Long.compareUnsigned(before, tk.halfMask) <= 0) {
                long available = Math.min(g + 1, tk.ring.length);
                TimekeeperState found = null;
                for (long k = 1; k < available; k++) {
                    TimekeeperState e = tk.ring[(int) (g - k) & tk.ringMask];
                    if (Long.compareUnsigned((newest - e.mono.cycleLast) & tk.mask, before) >= 0) {
                        found = e;
                        break;
                    }
                }
                if (found == null) {
                    found = tk.ring[(int) (g - available + 1) & tk.ringMask];
                    within = false;
                }
                st = found;
            }
            TkReadBase line = p.line(st);
            cycleLast = line.cycleLast;
            mult = line.mult;
            xtime = line.xtimeNsec;
            base = line.base;
            maxCycles = st.maxCycles;
            offset = p.offset(st);
            leapMono = st.leapMono;
            leapStep = st.leapStepNs;
            generation = st.generation;
            wasSet = st.clockWasSetSeq;
        } while (readRetry(tk, s));
        long value;
        if (!p.counter()) {
            value = base;
        } else if (within) {
            long delta = (counter - cycleLast) & tk.mask;
            value = base + (Long.compareUnsigned(delta, maxCycles) <= 0
                    ? (xtime + delta * mult) >>> tk.shift
                    : MultShift.wide(delta, mult, tk.shift, xtime));
        } else {
            // Backwards from the oldest state: base + floor((xtime - d * mult) / 2^shift)
            // = base - ceil((d * mult - xtime) / 2^shift) = base - floor((d * mult + (2^shift - 1 - xtime)) / 2^shift).
            long d = (cycleLast - counter) & tk.mask;
            value = base - MultShift.wide(d, mult, tk.shift, ((1L << tk.shift) - 1) - xtime);
        }
        long result = p.project(value, offset, leapMono, leapStep);
        if (into != null) {
            into.nanos = result;
            into.withinHistory = within;
            into.generation = generation;
            into.clockWasSetSeq = wasSet;
        }
        return result;
    }

    /** See {@link Timekeeper#clockWasSetSeq()}. */
    static int clockWasSetSeq(Timekeeper tk) {
        long s;
        int v;
        do {
            s = readBegin(tk);
            v = tk.ring[(int) (s >>> 1) & tk.ringMask].clockWasSetSeq;
        } while (readRetry(tk, s));
        return v;
    }
}
