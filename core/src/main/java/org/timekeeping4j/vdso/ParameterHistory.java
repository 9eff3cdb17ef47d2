package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.StampedLock;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * The kernel's parameter sets of the last minutes, each with the counter range in which a reader saw it
 * published, so that a counter value read then converts with the set that served it: exactly what the clock
 * read at that counter value, long after the kernel moved on (the kernel changes its rate at a large share of its
 * updates while a daemon steers it).
 *
 * <p><b>Keeping it.</b> A daemon thread ({@code timekeeping4j-history}) copies the published set with an ordered
 * counter read under the data's seq ({@link VdsoFormula#readSet}) every {@link #periodNanos()}: a third of the
 * shortest interval between the kernel's updates seen so far, within 0.25 to 1 ms (the kernel updates every tick,
 * 4 ms at HZ=250). A set on the line of the one before (consecutive seq counts, {@link ParameterSet#sameLine})
 * only extends it; another is appended, marked where seq counts were skipped (updates no look saw). Sets older
 * than the history's length are dropped. Started on demand ({@link KernelVdso#keepHistory}): a process that never
 * converts old ticks runs no thread and keeps nothing.
 *
 * <p><b>Converting.</b> A counter value c at or before a set's last sighting, and at or after its first, was
 * served by it: exact. Between one set's last sighting and the next one's first, the kernel itself tells most of
 * it: where it made the next set by changing mult (timekeeping_adjust), the two lines meet at the counter value it
 * read for that update ({@link ParameterSet#meetingPoint}), before it published the set, so c at or before that
 * point was served by the older set. After it, either may have served c (for the microsecond or so the kernel
 * takes to publish): exact where both give the same value, else the later set's value with the difference (a
 * nanosecond or so) as its bound. Where updates were skipped (no look saw them), the nearer set's value, with the
 * rate difference the history saw over the unseen span added to the bound. The set published now, where no look
 * saw it yet, is judged the same way as the next set: its cycle_last does not say from when it served (a daemon's
 * frequency change, adjtimex's TK_ADV_FREQ update, keeps cycle_last and changes the line at once). Older than the
 * history: the caller extrapolates along the current line, with that rate difference times the age as the bound;
 * before the history began, unbounded.
 *
 * <p><b>kvm-clock.</b> Where the data counts in pvclock nanoseconds (clock_mode PVCLOCK), each set carries the
 * pvclock page it was seen with, sightings stay in ticks (the TSC), and a tick converts through its set's page
 * first ({@link ParameterSet#cycles}); a new page under the same update is a set of its own, and either it or the
 * one before served a tick between their sightings (exact where both give the same value). A switch of clocksource
 * (tsc &lt;-&gt; kvm-clock) drops the sets before it: a tick older than the switch is extrapolated, unbounded.
 *
 * <p><b>Publication.</b> The writers, the sampler and a converter keeping a set the ring lacks ({@link #offer}),
 * hold a {@link StampedLock}'s write lock; converters (any thread) copy the two sets they need under an optimistic
 * read and validate it, else take the read lock.
 * Nothing allocates after the ring has grown to its size.
 */
public final class ParameterHistory {

    /** {@link #convert} found the set that served the counter value, or the two that may have: into is filled. */
    static final int FOUND = 0;
    /** The counter value is older than the history: into's bound is filled, the value is the caller's to make. */
    static final int OLDER = 1;
    /** The history cannot say (the data does not serve the counter now): the caller converts without it. */
    static final int UNKNOWN = 2;

    private static final int INITIAL_SETS = 1024;
    private static final long MIN_PERIOD_NANOS = 250_000L;
    private static final long MAX_PERIOD_NANOS = 1_000_000L;
    /** Update intervals remembered for the period: the shortest of the last these many. */
    private static final int INTERVALS = 64;
    /** How long after a predicted tick the sampler looks, and looks again where it saw no update yet. */
    private static final long AFTER_TICK_NANOS = 20_000L;

    final Generation generation;
    private final VdsoLayout layout;
    private final MemorySegment page;
    /** kvm-clock's pvclock page where the generation reads one, else null. */
    private final MemorySegment pvti;
    private final long historyNanos;
    private final int maxSets;
    private final StampedLock lock = new StampedLock();

    // Written by the sampler under the write lock; read by converters under an optimistic read or the read lock:
    // StampedLock.validate's acquire fence pairs with unlockWrite's release (a converter that validates saw them
    // whole).
    private long[] ring = new long[INITIAL_SETS * ParameterSet.STRIDE];
    private int capacity = INITIAL_SETS;
    private long head;
    private long tail;
    private long minMult = Long.MAX_VALUE;
    private long maxMult = Long.MIN_VALUE;
    /**
     * The ticks at which the sampler first saw the data count another way (a clocksource switch, tsc &lt;-&gt;
     * kvm-clock): every set before was dropped, and nothing bounds a tick before it. {@link Long#MIN_VALUE}: none.
     */
    private long switchedAt = Long.MIN_VALUE;
    /** The ticks of the first look's sighting: nothing bounds a tick before the history began. */
    private long startedAt = Long.MIN_VALUE;
    /** Whether the sets since the last switch were seen with more than one pvclock page (kvm-clock's host moved it). */
    private boolean pageChanged;

    // The sampler's own.
    /** A look found the data counting in a way no set can keep (Hyper-V, an unstable pvclock): the sets went. */
    private boolean lost;
    private final long[] seen = new long[ParameterSet.STRIDE];
    private final long[] intervals = new long[INTERVALS];
    private int intervalCount;
    private long lastUpdateCycleLast = Long.MIN_VALUE;
    private long lastLead;
    private long lastSeq = Long.MIN_VALUE;
    /** The kernel's tick in counter cycles: the shortest accumulation between two updates seen. */
    private long tickCycles;
    /**
     * Not the sampler's alone: the last meeting point told ({@link ParameterSet#meetingPoint}), the tick phase.
     * Volatile: written under the write lock (sampler or {@link #offer}), read at each wake; pairs with nothing else.
     */
    private volatile long lastMet = Long.MIN_VALUE;
    // Volatile: written by the sampler alone, or under the write lock (skipped), so ++ loses nothing; read by
    // describe() on any thread; no other field is published through them.
    private volatile long periodNanos = MAX_PERIOD_NANOS;
    private volatile long looks;
    private volatile long updates;
    private volatile long skipped;
    private volatile long unreadable;
    /** Volatile: set by a re-discovery's thread, read by the sampler at each wake; pairs with nothing else. */
    private volatile boolean stopped;

    ParameterHistory(Generation generation, long historyNanos) {
        this(generation, generation.state.layout(), generation.state.page(), historyNanos);
    }

    /**
     * A history fed by {@link #add} alone: no page, no sampler. For the stress tests of its publication (the
     * sampler's writes against converters' reads).
     *
     * @param layout       the layout whose formula converts
     * @param historyNanos how long each set is kept, ns
     */
    public ParameterHistory(VdsoLayout layout, long historyNanos) {
        this(null, layout, null, historyNanos);
    }

    private ParameterHistory(Generation generation, VdsoLayout layout, MemorySegment page, long historyNanos) {
        this.generation = generation;
        this.layout = layout;
        this.page = page;
        this.pvti = generation == null ? null : generation.pvti;
        this.historyNanos = historyNanos;
        // 1100 updates a second: HZ=1000 and the updates a daemon's adjtimex calls make between ticks.
        this.maxSets = (int) Math.min(Integer.MAX_VALUE / ParameterSet.STRIDE,
                Math.max(INITIAL_SETS, historyNanos / 1_000_000_000L * 1100));
    }

    /** Starts the sampler thread; its first look is made before this returns. */
    void start() {
        look();
        Thread t = new Thread(this::run, "timekeeping4j-history");
        t.setDaemon(true);
        t.start();
    }

    /** Stops the sampler at its next wake (a re-discovery replaced the data it reads). */
    void stop() {
        stopped = true;
    }

    private void run() {
        org.timekeeping4j.linux.LibC.setTimerSlack(1_000); // wake within microseconds of the tick, not 50 us late
        while (!stopped) {
            long tick = tickCycles;
            long met = lastMet;
            if (met == Long.MIN_VALUE || tick <= 0) {
                LockSupport.parkNanos(periodNanos); // the sampling period: time must pass between looks
                look();
                continue;
            }
            // The kernel updates at its tick, a whole number of ticks after a meeting point it told: wake just
            // after the next one, so that each look sees one update, soon after its publication; again a little
            // later where it was late (or the CPU was idle: no tick), then as before.
            long now = ParameterSet.cycles(seen, 0, VdsoStub.readCounterUnordered()); // the kernel's cycles
            long next = met + ((now - met) / tick + 1) * tick;
            LockSupport.parkNanos(cyclesToNanos(next - now, seen, 0) + AFTER_TICK_NANOS);
            long before = lastSeq;
            look();
            for (int i = 0; i < 3 && lastSeq == before && !stopped; i++) {
                LockSupport.parkNanos(AFTER_TICK_NANOS);
                look();
            }
        }
    }

    /** One look at the published set: extends the newest set, or appends one. */
    void look() {
        if (!VdsoFormula.readSet(layout, page, pvti, seen, 0)) {
            unreadable++;
            if (seen[ParameterSet.MODE] == VdsoFormula.UNKEPT && !lost) {
                long stamp = lock.writeLock();
                try {
                    switched(Long.MIN_VALUE); // nothing kept says how ticks converted from here to the next set
                } finally {
                    lock.unlockWrite(stamp);
                }
                lost = true;
            }
            return;
        }
        looks++;
        add(seen);
    }

    /**
     * Adds a set as the sampler adds the one it saw (extends the newest where on its line, else appends): the one
     * writer. For the stress tests; the sampler thread calls it for itself through {@link #look}.
     *
     * @param set {@link ParameterSet#STRIDE} longs, its FIRST_SEEN the counter value it was seen at
     */
    public void add(long[] set) {
        ParameterSet.copy(set, 0, seen, 0);
        long seq = seen[ParameterSet.FIRST_SEQ];
        if (seq != lastSeq) {
            noteUpdate(seq);
        }
        long stamp = lock.writeLock();
        try {
            note(seen, 0, true);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** {@link #convert} for the stress tests, {@code current} (the set published now) at 0: FOUND, OLDER or UNKNOWN. */
    public int lookup(long counter, CounterClock clock, long[] current, VdsoNanos into) {
        return convert(counter, clock, current, 0, into);
    }

    /** A new seq count: counts the updates and sizes the period from the shortest interval between them. */
    private void noteUpdate(long seq) {
        long cycleLast = seen[ParameterSet.BASE];
        long lead = ParameterSet.lead(seen, 0);
        boolean next = lastSeq != Long.MIN_VALUE && ParameterSet.next(lastSeq, seq);
        updates += lastSeq == Long.MIN_VALUE ? 1 : Math.max(1, (int) (seq - lastSeq) / 2);
        // Not after a set of REALTIME: timekeeping_forward_now put cycle_last where it read, not a tick's multiple.
        if (next && lastUpdateCycleLast != Long.MIN_VALUE && cycleLast > lastUpdateCycleLast && lead == lastLead) {
            intervals[intervalCount++ % INTERVALS] = cycleLast - lastUpdateCycleLast; // one tick's accumulation
            long shortest = Long.MAX_VALUE;
            for (int i = 0; i < Math.min(intervalCount, INTERVALS); i++) {
                shortest = Math.min(shortest, intervals[i]);
            }
            long nanos = cyclesToNanos(shortest, seen, 0);
            periodNanos = Math.max(MIN_PERIOD_NANOS, Math.min(MAX_PERIOD_NANOS, nanos / 3));
            tickCycles = shortest;
        }
        lastUpdateCycleLast = cycleLast;
        lastLead = lead;
        lastSeq = seq;
    }

    /**
     * Under the write lock: the set at {@code at} in {@code src} extends the newest set or becomes a new one; old
     * sets go. A sighting not after the newest one adds nothing (a converter offered a later one meanwhile).
     *
     * @param sampler whether the sampler saw it (else a converter, {@link #offer}: it leaves a switch's handling
     *                to the sampler, but tells the tick's phase as the sampler would)
     */
    private void note(long[] src, int at, boolean sampler) {
        long counter = src[at + ParameterSet.FIRST_SEEN];
        if (startedAt == Long.MIN_VALUE) {
            startedAt = counter;
        }
        long seq = src[at + ParameterSet.FIRST_SEQ];
        if (sampler && (lost || (head > tail && src[at + ParameterSet.MODE] != ring[offset(head - 1) + ParameterSet.MODE]))) {
            switched(counter); // another clocksource, or one no set kept: what came before goes
            lost = false;
        }
        if (head > tail) {
            int n = offset(head - 1);
            if (counter - ring[n + ParameterSet.LAST_SEEN] <= 0 || (int) (seq - ring[n + ParameterSet.LAST_SEQ]) < 0) {
                return; // not after the newest sighting (a converter's, meanwhile): it tells nothing new
            }
            boolean sameCounter = ParameterSet.sameCounter(ring, n, src, at);
            if (seq == ring[n + ParameterSet.LAST_SEQ] && sameCounter) {
                ring[n + ParameterSet.LAST_SEEN] = counter;
                return;
            }
            boolean next = ParameterSet.next(ring[n + ParameterSet.LAST_SEQ], seq);
            // One update unseen between two on one line was on it too: off it, the line it left and the one it
            // came back to would differ by (c - its read) x its adj, for every c (ParameterSet#meetingPoint).
            boolean oneUnseen = (int) (seq - ring[n + ParameterSet.LAST_SEQ]) == 4;
            if ((next || oneUnseen) && ParameterSet.sameLine(ring, n, src, at)) {
                ring[n + ParameterSet.LAST_SEQ] = seq;
                ring[n + ParameterSet.LAST_SEEN] = counter;
                return;
            }
            if (!sameCounter) {
                pageChanged = true; // the host moved kvm-clock's line: a set of its own, and OLDER bounds nothing
            }
            if (seq == ring[n + ParameterSet.LAST_SEQ]) {
                // The same update, another pvclock page: counted as no unseen update.
            } else if (!next) {
                skipped++;
            } else if (src[at + ParameterSet.BASE] != ring[n + ParameterSet.BASE]) {
                // A tick's update (cycle_last moved; a daemon's frequency change keeps it and meets the old line
                // wherever adjtimex was called): the next ticks are whole ticks after its meeting point. Whoever saw
                // it: ticks counted in cycle_interval drift from the kernel's timer by the steered rate's offset.
                long met = ParameterSet.meetingPoint(ring, n, src, at);
                if (met != Long.MIN_VALUE) {
                    lastMet = met;
                }
            }
        }
        if (head - tail == capacity) {
            if (capacity < maxSets) {
                grow();
            } else {
                tail++; // full at its largest: the oldest set goes early
            }
        }
        ParameterSet.copy(src, at, ring, offset(head));
        head++;
        long mult = src[at + ParameterSet.BASE + 1];
        minMult = Math.min(minMult, mult);
        maxMult = Math.max(maxMult, mult);
        long oldest = counter - ticksIn(historyNanos, src, at);
        while (head - tail > 1 && ring[offset(tail) + ParameterSet.LAST_SEEN] - oldest < 0) {
            tail++;
        }
    }

    /**
     * A converter's sighting of the set published now, where the ring lacks it (the sampler has not looked since
     * it was published, or a counter value after its last look is judged by this sighting): kept as the
     * sampler's would be, so that a counter value judged with it is judged the same way later, after the
     * sampler's next look. Takes the write lock once per such set, or per conversion of a counter value read
     * since the ring's last sighting; a sighting with another clocksource's data is left to the sampler.
     */
    private void offer(long[] src, int at) {
        long stamp = lock.writeLock();
        try {
            if (head > tail && src[at + ParameterSet.MODE] == ring[offset(head - 1) + ParameterSet.MODE]) {
                note(src, at, false);
            }
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Under the write lock: the data counts another way from {@code counter} on (tsc &lt;-&gt; kvm-clock), or in a way
     * no set keeps ({@link Long#MIN_VALUE}: the next set's first sighting says from when). The sets kept so far
     * and what the sampler learnt of the kernel's tick are in the other unit: dropped.
     */
    private void switched(long counter) {
        tail = head;
        minMult = Long.MAX_VALUE;
        maxMult = Long.MIN_VALUE;
        pageChanged = false;
        if (counter != Long.MIN_VALUE) {
            switchedAt = counter;
        }
        lastMet = Long.MIN_VALUE;
        tickCycles = 0;
        intervalCount = 0;
        lastUpdateCycleLast = Long.MIN_VALUE;
        periodNanos = MAX_PERIOD_NANOS;
    }

    private void grow() {
        int larger = (int) Math.min(maxSets, 2L * capacity);
        long[] bigger = new long[larger * ParameterSet.STRIDE];
        for (long i = tail; i < head; i++) {
            ParameterSet.copy(ring, offset(i), bigger, (int) (i % larger) * ParameterSet.STRIDE);
        }
        ring = bigger;
        capacity = larger;
    }

    private int offset(long index) {
        return (int) (index % capacity) * ParameterSet.STRIDE;
    }

    /**
     * Converts counter value {@code counter} to {@code clock} with the set that served it, into {@code into}
     * (its value without the time namespace's offset, whether exact, and the bound where not).
     *
     * @param current the set published now, read by the caller just before ({@link VdsoFormula#readSet}): the
     *                newest set when the sampler has not seen it yet
     * @return {@link #FOUND}, {@link #OLDER} (only the bound filled) or {@link #UNKNOWN}
     */
    int convert(long counter, CounterClock clock, long[] current, int cur, VdsoNanos into) {
        if (into.sets == null) {
            into.sets = new long[2 * ParameterSet.STRIDE + 7]; // once per holder
        }
        long[] sets = into.sets;
        int x = 2 * ParameterSet.STRIDE; // locate's extras: mult range, switch, page change, newest mode, start
        long stamp = lock.tryOptimisticRead();
        int found = locate(counter, sets, current, cur);
        if (!lock.validate(stamp) || sets[x + 6] != 0) { // the sampler wrote meanwhile, or the ring lacks current
            if (sets[x + 6] != 0) {
                offer(current, cur);
            }
            stamp = lock.readLock(); // again, holding the writers off
            try {
                found = locate(counter, sets, current, cur);
            } finally {
                lock.unlockRead(stamp);
            }
        }
        long conv = current[cur + ParameterSet.FIRST_SEEN];
        if (counter - conv > 0) {
            return UNKNOWN; // not this counter's past (read after our look: the caller's current window)
        }
        if (found == 0) { // older than the history (or nothing kept yet)
            long switched = sets[x + 2];
            boolean unbounded = (switched != Long.MIN_VALUE && counter - switched < 0) // another clocksource's
                    || sets[x + 5] == Long.MIN_VALUE || counter - sets[x + 5] < 0 // before the history began
                    || sets[x + 3] != 0 // kvm-clock's host moved the pvclock page: its old lines are not this one
                    || sets[x + 4] != current[cur + ParameterSet.MODE]; // a switch no look has seen yet
            into.bound = unbounded ? Long.MAX_VALUE : boundOver(sets[x + 1] - sets[x], conv - counter, current, cur);
            return OLDER;
        }
        int b = found == 2 ? ParameterSet.STRIDE : -1;
        if (b < 0 && (current[cur + ParameterSet.FIRST_SEQ] != sets[ParameterSet.LAST_SEQ]
                || !ParameterSet.sameCounter(current, cur, sets, 0))) {
            // The set published now, which no look has seen yet: judged as the next set. Its cycle_last does not
            // say from when it served: a daemon's frequency change (adjtimex, TK_ADV_FREQ) keeps cycle_last and
            // changes the line at once, so a counter value between them was served by the older line.
            ParameterSet.copy(current, cur, sets, ParameterSet.STRIDE);
            b = ParameterSet.STRIDE;
        }
        long va = ParameterSet.value(layout, sets, 0, clock, counter);
        if (b < 0 || counter - sets[ParameterSet.LAST_SEEN] <= 0) {
            return found(into, va, true, 0); // seen published at or after it, and before: it served it
        }
        long vb = ParameterSet.value(layout, sets, b, clock, counter);
        boolean nearerOld = counter - sets[ParameterSet.LAST_SEEN] < sets[b + ParameterSet.FIRST_SEEN] - counter;
        if (sets[ParameterSet.MODE] != sets[b + ParameterSet.MODE]) {
            return found(into, nearerOld ? va : vb, false, Long.MAX_VALUE); // a switch came between the sightings
        }
        boolean next = ParameterSet.next(sets[ParameterSet.LAST_SEQ], sets[b + ParameterSet.FIRST_SEQ]);
        boolean samePage = ParameterSet.sameCounter(sets, 0, sets, b);
        if (samePage) { // with another page, b's cycle_last may have been read through either
            long cyclesB = ParameterSet.cycles(sets, b, counter); // the counter value in the next set's cycles
            if (next && cyclesB - sets[b + ParameterSet.base(clock)] < 0) {
                return found(into, va, true, 0); // before the next set's cycle_last: published after the read
            }
            if (next) {
                long met = ParameterSet.meetingPoint(sets, 0, sets, b);
                if (met != Long.MIN_VALUE && cyclesB - met <= 0) {
                    return found(into, va, true, 0); // before the kernel made the next set: the old one served it
                }
            }
        }
        long lo = Math.min(va, vb);
        long hi = Math.max(va, vb);
        if (!samePage) { // kvm-clock's host moved the page between the sightings: either data with either page
            long vab = ParameterSet.value(layout, sets, 0, b, clock, counter);
            long vba = ParameterSet.value(layout, sets, b, 0, clock, counter);
            lo = Math.min(lo, Math.min(vab, vba));
            hi = Math.max(hi, Math.max(vab, vba));
        }
        boolean samePublication = sets[ParameterSet.LAST_SEQ] == sets[b + ParameterSet.FIRST_SEQ];
        if ((next || samePublication) && lo == hi) {
            return found(into, vb, true, 0); // whichever served it: the same value
        }
        long bound = hi - lo < 0 ? Long.MAX_VALUE : hi - lo;
        if (next || samePublication) { // one of the candidates served it
            return found(into, vb, false, bound);
        }
        // Updates no look saw came between: the nearer set's value, and the rate difference over the unseen span.
        bound = satAdd(bound, boundOver(sets[x + 1] - sets[x], sets[b + ParameterSet.FIRST_SEEN]
                - sets[ParameterSet.LAST_SEEN], sets, b));
        return found(into, nearerOld ? va : vb, false, bound);
    }

    /**
     * Copies into {@code sets} the set that was published last at or before {@code counter} (at 0) and the next
     * one where there is one (at STRIDE), and at 2 * STRIDE: the mult range (the lowest, then the highest), the
     * ticks of the last switch, 1 where the pvclock page changed since, the newest set's clock_mode, the ticks at
     * which the history began, 1 where the ring lacks {@code current} (a later set than its newest, another page,
     * or a later sighting of the newest that {@code counter} needs: {@link #offer}). Reads the ring: under an
     * optimistic read or the read lock.
     *
     * @return 0 where none is that old, 1 for the newest set alone, 2 for a set and its next
     */
    private int locate(long counter, long[] sets, long[] current, int cur) {
        int at = 2 * ParameterSet.STRIDE;
        sets[at] = minMult;
        sets[at + 1] = maxMult;
        sets[at + 2] = switchedAt;
        sets[at + 3] = pageChanged ? 1 : 0;
        sets[at + 5] = startedAt;
        long[] r = ring; // a grow replaces it: this copy and capacity are validated together
        int cap = capacity;
        int newest = (int) ((head - 1) % Math.max(1, cap)) * ParameterSet.STRIDE + ParameterSet.MODE;
        sets[at + 4] = head > tail && newest >= 0 && newest < r.length ? r[newest] : Long.MIN_VALUE; // torn: validated
        int n = newest - ParameterSet.MODE;
        long seq = current[cur + ParameterSet.FIRST_SEQ];
        // Lacks it: a later set, another page, or a later sighting of the newest set that this verdict rests on
        // (the counter value lies after the ring's last sighting), so that a later verdict rests on it too.
        sets[at + 6] = head > tail && n >= 0 && n + ParameterSet.STRIDE <= r.length
                && current[cur + ParameterSet.FIRST_SEEN] - r[n + ParameterSet.LAST_SEEN] > 0
                && ((int) (seq - r[n + ParameterSet.LAST_SEQ]) > 0
                        || (seq == r[n + ParameterSet.LAST_SEQ] && (!ParameterSet.sameCounter(r, n, current, cur)
                                || counter - r[n + ParameterSet.LAST_SEEN] > 0))) ? 1 : 0;
        long lo = tail;
        long hi = head - 1;
        long found = -1;
        while (lo <= hi && hi - lo < cap) {
            long mid = (lo + hi) >>> 1;
            int o = (int) (mid % cap) * ParameterSet.STRIDE;
            if (o + ParameterSet.STRIDE > r.length) {
                return 0; // a torn view of a grow: validate fails and the read lock reads again
            }
            if (r[o + ParameterSet.FIRST_SEEN] - counter <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            return 0;
        }
        System.arraycopy(r, (int) (found % cap) * ParameterSet.STRIDE, sets, 0, ParameterSet.STRIDE);
        if (found + 1 >= head) {
            return 1;
        }
        int o = (int) ((found + 1) % cap) * ParameterSet.STRIDE;
        if (o + ParameterSet.STRIDE > r.length) {
            return 0;
        }
        System.arraycopy(r, o, sets, ParameterSet.STRIDE, ParameterSet.STRIDE);
        return 2;
    }

    private static int found(VdsoNanos into, long nanos, boolean exact, long bound) {
        into.nanos = nanos;
        into.exact = exact;
        into.bound = bound;
        return FOUND;
    }

    /** {@code spread} of mult over {@code ticks}, shifted as the set at {@code at} shifts, rounded up. */
    private static long boundOver(long spread, long ticks, long[] s, int at) {
        if (spread < 0 || ticks <= 0) {
            return spread < 0 ? Long.MAX_VALUE : 1;
        }
        int shift = (int) s[at + ParameterSet.BASE + 2];
        double ns = Math.scalb((double) spread * ParameterSet.span(s, at, ticks), -shift);
        return ns >= 9.0e18 ? Long.MAX_VALUE : (long) Math.ceil(ns) + 1;
    }

    private static long satAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** ns in {@code cycles} on the HRES line of the set at {@code at}. */
    private static long cyclesToNanos(long cycles, long[] s, int at) {
        return (long) Math.scalb((double) cycles * s[at + ParameterSet.BASE + 1], -(int) s[at + ParameterSet.BASE + 2]);
    }

    /** Ticks in {@code nanos} on the HRES line of the set at {@code at}. */
    private static long ticksIn(long nanos, long[] s, int at) {
        long mult = Math.max(1, s[at + ParameterSet.BASE + 1]);
        double cycles = Math.scalb((double) nanos, (int) s[at + ParameterSet.BASE + 2]) / mult;
        double ticks = ParameterSet.ticks(s, at, cycles);
        return ticks >= 9.0e18 ? Long.MAX_VALUE / 2 : (long) ticks;
    }

    /** {@return how long each set is kept, ns} */
    long historyNanos() {
        return historyNanos;
    }

    /** {@return the tick phase the sampler wakes by: the last meeting point told, or {@link Long#MIN_VALUE}} */
    long lastMeeting() {
        return lastMet;
    }

    /** {@return the kernel's tick in counter cycles as the sampler learnt it, 0 before} */
    long tickCycles() {
        return tickCycles;
    }

    /** {@return the sampling period now, ns} */
    long periodNanos() {
        return periodNanos;
    }

    /**
     * One line for the diagnostics: the length kept, the sets held, the sampling period, the updates seen and
     * those no look saw.
     */
    String describe() {
        long stamp = lock.readLock();
        long sets;
        long bytes;
        try {
            sets = head - tail;
            bytes = (long) ring.length * Long.BYTES;
        } finally {
            lock.unlockRead(stamp);
        }
        return String.format(java.util.Locale.ROOT, "kept for %d s: %d parameter sets (%d KiB), %d looks (just after"
                        + " each tick; else every %d us), %d kernel updates, %d between looks unseen%s",
                historyNanos / 1_000_000_000L, sets, bytes / 1024, looks, periodNanos / 1_000, updates, skipped,
                unreadable > 0 ? ", " + unreadable + " looks found no counter line (Hyper-V, a namespace's page)" : "");
    }
}
