package org.timekeeping4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.timekeeping4j.timekeeper.Timekeeper;
import org.timekeeping4j.tracking.KernelTracker;

/**
 * Event capture: the cheapest possible timestamp in the hot path ({@link Clocks#ticks()}, one unordered
 * counter read), conversion to a clock later. A ring of (ticks, payload) pairs.
 *
 * <h2>Assumptions and guarantees</h2>
 * <ul>
 *   <li>One recording thread at a time (single writer); any thread may export. Recording allocates nothing
 *       and takes no lock: two plain array stores and one ordered store of the count.</li>
 *   <li>The ring keeps the newest {@link #capacity()} events; older ones are overwritten.</li>
 *   <li>Export converts each event through the fast path's parameter history, to exactly what
 *       {@code Clocks.nanos(clock)} returned at that counter value, for events within the history (a few
 *       seconds at the tracker's update rate). Older events are converted with the oldest parameters
 *       and flagged {@code exact == false}. On the kernel path ticks are MONOTONIC_RAW ns and convert
 *       through the current offsets (also flagged inexact for other clocks).</li>
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
         * @param exact   false when the event predates the parameter history (or on the kernel path)
         */
        void accept(long nanos, long payload, boolean exact);
    }

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(EventRecorder.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] ticks;
    private final long[] payloads;
    private final int mask;
    private final Timekeeper.Conversion conversion = new Timekeeper.Conversion();
    @SuppressWarnings("unused") // through COUNT
    private long count;

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
    }

    /** {@return how many events this recorder keeps (the capacity asked for, rounded up to a power of two)} */
    public int capacity() {
        return ticks.length;
    }

    /** {@return events recorded so far (including overwritten ones)} */
    public long recorded() {
        return (long) COUNT.getAcquire(this);
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
     * @param tickValue a value {@link Clocks#ticks()} returned
     * @param payload   what to store with the event
     */
    public void record(long tickValue, long payload) {
        long n = (long) COUNT.get(this); // single writer: only this thread writes count
        int i = (int) n & mask;
        ticks[i] = tickValue;
        payloads[i] = payload;
        // Release: the slot's two stores become visible before the count that covers them. Pairs with the
        // getAcquire of count in export().
        COUNT.setRelease(this, n + 1);
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
        long end = (long) COUNT.getAcquire(this); // pairs with setRelease in record()
        long start = Math.max(0, end - ticks.length);
        KernelTracker t = FastPath.tracker();
        int exported = 0;
        for (long n = start; n < end; n++) {
            int i = (int) n & mask;
            long tv = ticks[i];
            long payload = payloads[i];
            // Orders the slot loads before the count re-read. If the writer has lapped this slot, skip it:
            // its fields may belong to a newer event.
            VarHandle.loadLoadFence();
            if ((long) COUNT.getAcquire(this) - n > ticks.length) {
                continue;
            }
            long nanos;
            boolean exact;
            if (t != null && t.isTracking() && FastPath.Ticks.SOURCE.frequencyHz() == t.counter().frequencyHz()) {
                try {
                    exact = t.convert(tv, clock, conversion);
                    nanos = conversion.nanos();
                } catch (IllegalStateException notTracking) {
                    nanos = Clocks.ticksToNanos(tv, clock);
                    exact = false;
                }
            } else {
                nanos = Clocks.ticksToNanos(tv, clock);
                exact = clock == ClockId.MONOTONIC_RAW && !(FastPath.Ticks.SOURCE
                        instanceof org.timekeeping4j.clocksource.HardwareCounter);
            }
            consumer.accept(nanos, payload, exact);
            exported++;
        }
        return exported;
    }
}
