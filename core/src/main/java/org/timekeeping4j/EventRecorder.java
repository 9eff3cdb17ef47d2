package org.timekeeping4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.serving.TicksConverter;

/**
 * Event capture: the cheapest possible timestamp in the hot path ({@link Clocks#ticks()}, one unordered
 * counter read), conversion to a clock later. A ring of (ticks, payload) pairs.
 *
 * <h2>Assumptions and guarantees</h2>
 * <ul>
 *   <li>One recording thread at a time (single writer); any thread may export. Recording allocates nothing
 *       and takes no lock: two plain array stores between two ordered stores of a sequence number.</li>
 *   <li>The ring keeps the newest {@link #capacity()} events; older ones are overwritten.</li>
 *   <li>Export converts each event to the export clock. In exact mode with the kernel's parameter set that
 *       served it, from the parameter history (kept for {@code timekeeping4j.history} seconds, 60 by default, from
 *       the first recorder on): exactly what {@code Clocks.nanos(clock)} returned at that counter value where the
 *       history shows which set that was; else flagged {@code extrapolated}, with a bound
 *       ({@code Clocks.snapshotAt(ticks, clock, s).errorBoundNanos()}): a nanosecond or so where the kernel was
 *       publishing an update, more after updates no look saw; older than the history, or with no history kept,
 *       along the current line (off by the kernel's rate changes since: ppm times the event's age). On the kernel
 *       path ticks are MONOTONIC_RAW ns and convert through the current offsets (flagged extrapolated for other
 *       clocks).</li>
 *   <li>An event overwritten while an export runs is skipped, never reported torn.</li>
 * </ul>
 */
public final class EventRecorder {

    /** Receives exported events, oldest first. */
    @FunctionalInterface
    public interface EventConsumer {
        /**
         * Receives one event.
         *
         * @param nanos   the event's time on the export clock
         * @param payload what was recorded with it
         * @param extrapolated true when the value is extrapolated rather than what the clock read at the event:
         *                     the parameter history does not show which of the kernel's sets served the event
         *                     (exact mode: see the guarantees above), or the kernel
         *                     path converted it through an offset measured now, or the event predates a clock
         *                     disruption the library saw (a VMClock marker change)
         */
        void accept(long nanos, long payload, boolean extrapolated);
    }

    /** Receives raw exported events, oldest first. */
    @FunctionalInterface
    public interface TickConsumer {
        /**
         * Receives one event.
         *
         * @param ticks   the {@link Clocks#ticks()} value recorded with the event
         * @param payload what was recorded with it
         */
        void accept(long ticks, long payload);
    }

    private static final VarHandle SEQ;

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(EventRecorder.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] ticks;
    private final long[] payloads;
    private final int mask;
    /** Export's conversion (export is synchronized: one at a time). */
    private final TicksConverter conversion = new TicksConverter();
    /** Export's step as a tick consumer, made once: an export allocates nothing. */
    private final TickConsumer converting = this::convertAndHandOver;
    /** The clock and consumer of the export in progress; guarded by this. */
    private ClockId exportClock;
    private EventConsumer exportConsumer;
    /** Twice the number of events recorded, plus one while the writer stores an event. */
    @SuppressWarnings("unused") // through SEQ
    private long seq;

    /**
     * A recorder keeping the newest {@code capacity} events (rounded up to a power of two).
     *
     * @param capacity how many events to keep, 1..2^28
     * @throws IllegalArgumentException for a capacity outside 1..2^28
     */
    public EventRecorder(int capacity) {
        if (capacity < 1 || capacity > (1 << 28)) {
            throw new IllegalArgumentException("capacity must be 1..2^28, got " + capacity);
        }
        int size = Integer.highestOneBit(capacity);
        if (size < capacity) {
            size <<= 1;
        }
        ticks = new long[size];
        payloads = new long[size];
        mask = size - 1;
        FastPath.keepHistory(); // its events convert exactly for the history's length
    }

    /** {@return how many events this recorder keeps (the capacity asked for, rounded up to a power of two)} */
    public int capacity() {
        return ticks.length;
    }

    /** {@return events recorded so far (including overwritten ones)} */
    public long recorded() {
        return (long) SEQ.getAcquire(this) >>> 1;
    }

    /**
     * Timestamps an event now and stores it with {@code payload}.
     *
     * @param payload what to store with the event
     */
    public void record(long payload) {
        long t = Clocks.ticks();
        record(t, payload);
    }

    /**
     * Stores an event with a tick value the caller already read.
     *
     * @param ticks   a value {@link Clocks#ticks()} returned
     * @param payload what to store with the event
     */
    public void record(long ticks, long payload) {
        long seq = (long) SEQ.get(this); // single writer: only this thread writes seq; even between events
        int i = (int) (seq >>> 1) & mask;
        // Odd seq: event seq/2 is being written. Opaque is enough with the fence below: the storeStoreFence
        // makes this store (and the previous event's release store) visible before the slot stores, so a
        // reader that sees any slot store of this event sees this seq or a later one. Without it the slot
        // stores could be seen first and an export would accept a slot holding half of the event a lap
        // older and half of this one (EventRecorderLapTest in stress catches it). Only a compiler barrier on x86.
        SEQ.setOpaque(this, seq + 1);
        VarHandle.storeStoreFence();
        this.ticks[i] = ticks;
        payloads[i] = payload;
        // Release: the slot's two stores become visible before the even seq that covers them. Pairs with
        // the getAcquire of seq in export().
        SEQ.setRelease(this, seq + 2);
    }

    /**
     * Converts every retained event to {@code clock} and hands it to {@code consumer}, oldest first.
     * Allocates nothing beyond what the consumer does. Not for concurrent exports of the same recorder.
     *
     * @param clock    the clock to express the events on
     * @param consumer receives each event
     * @return the number of events exported
     */
    public synchronized int export(ClockId clock, EventConsumer consumer) {
        exportClock = clock;
        exportConsumer = consumer;
        try {
            return exportTicks(converting); // the same walk over the ring, each event converted on its way out
        } finally {
            exportClock = null;
            exportConsumer = null;
        }
    }

    /** {@link #export}'s step: one event converted and handed over (under export's lock). */
    private void convertAndHandOver(long tv, long payload) {
        conversion.convert(tv, exportClock);
        exportConsumer.accept(conversion.nanos(), payload, !conversion.exact());
    }

    /**
     * Hands every retained event's raw tick value and payload to {@code consumer}, oldest first, with the
     * same guarantee as {@link #export}: an event overwritten during the export is skipped. For keeping raw
     * ticks (to convert later with {@link Clocks#ticksToNanos}, within the parameter history).
     *
     * @param consumer receives each event's tick value and payload
     * @return the number of events handed over
     */
    public synchronized int exportTicks(TickConsumer consumer) {
        // Pairs with setRelease in record(); an odd seq's event is still being written: not included.
        long end = (long) SEQ.getAcquire(this) >>> 1;
        int exported = 0;
        for (long n = Math.max(0, end - ticks.length); n < end; n++) {
            int i = (int) n & mask;
            long tv = ticks[i];
            long payload = payloads[i];
            if (lapped(n)) {
                continue;
            }
            consumer.accept(tv, payload);
            exported++;
        }
        return exported;
    }

    /**
     * Whether the slot of event {@code n}, just loaded, may hold (part of) a later event: true once the writer
     * has begun event {@code n + capacity}, the next one in that slot (seq > 2 * (n + capacity)). Checking
     * the completed count instead ("more than capacity events since n") let exactly that event through while
     * it was being written, torn by one lap.
     */
    private boolean lapped(long n) {
        // LoadLoad: the slot loads before this seq load. Paired with the storeStoreFence in record(): if a
        // slot load saw a store of event n + capacity, this load sees seq >= 2 * (n + capacity) + 1. Acquire
        // on this load would order the accesses after it, not the slot loads before it.
        VarHandle.loadLoadFence();
        return (long) SEQ.getOpaque(this) > 2 * (n + ticks.length);
    }
}
