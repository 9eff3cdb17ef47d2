package org.timekeeping4j.linux;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The reading side of a sequence count over memory that another writer updates (the kernel's vDSO data and the
 * pvclock page, the VMClock driver's page, ClockBound's shared segment): the kernel's
 * {@code read_seqcount_begin} / {@code read_seqcount_retry}, once, for every such reader. Each reader keeps its
 * own loop, as the kernel's callers do:
 *
 * <pre>
 * long giveUpAt = 0;
 * for (int attempt = 0; ; attempt++) {
 *     giveUpAt = Seqcount.pace(attempt, giveUpAt);           // spin, then yield
 *     if (giveUpAt == Seqcount.GIVE_UP) throw ...;             // say why: Seqcount.notSettled
 *     int seq = Seqcount.begin(page, OFF_SEQ);
 *     if (Seqcount.writing(seq)) continue;                     // odd: a write in progress
 *     ... copy the fields ...
 *     if (!Seqcount.retry(page, OFF_SEQ, seq)) return ...;    // the copies belong to one update
 * }
 * </pre>
 *
 * The writer's side, which every reader here pairs with: make the count odd, a write barrier, the fields, a write
 * barrier, the count even. Counts are 32 bits ({@link #begin}) or 16 ({@link #begin16}, ClockBound's
 * generation), compared as the writer wrote them. Allocates nothing.
 */
public final class Seqcount {

    /** Reads of a count that does not settle before the reader yields between attempts. */
    public static final int SPIN_READS = 1 << 10;
    /** How long a reader waits at least, past its spins, before it gives up on a count that never settles. */
    public static final long SETTLE_BUDGET_NANOS = 100_000_000L;
    /** Attempts a reader makes at least before it gives up (a descheduled reader's budget may pass in one). */
    public static final int MIN_READS = 1 << 16;

    /** What {@link #pace} returns when the reader should give up. */
    public static final long GIVE_UP = Long.MIN_VALUE;

    private static final VarHandle U32 = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle U16 = ValueLayout.JAVA_SHORT.varHandle();

    private Seqcount() {}

    /**
     * read_seqcount_begin's load: the 32-bit count at {@code offset} (4-byte aligned).
     *
     * @return the count; odd while a write is in progress ({@link #writing})
     */
    public static int begin(MemorySegment page, long offset) {
        // Acquire: the field loads after this one are not performed before it; pairs with the writer's barrier
        // before it stores the even count (vdso_write_end, the drivers' write_seqcount_end: smp_wmb).
        return (int) U32.getAcquire(page, offset);
    }

    /** As {@link #begin}, for a 16-bit count (2-byte aligned), returned unsigned. */
    public static int begin16(MemorySegment page, long offset) {
        // Acquire: as in begin; pairs with the writer's release store of the even count.
        return Short.toUnsignedInt((short) U16.getAcquire(page, offset));
    }

    /** {@return whether {@code count} says a write is in progress (odd)} */
    public static boolean writing(int count) {
        return (count & 1) != 0;
    }

    /**
     * read_seqcount_retry: whether the fields copied since {@link #begin} may mix two updates, so that the reader
     * must copy them again.
     *
     * @param begun what {@link #begin} returned
     * @return true when the count moved since
     */
    public static boolean retry(MemorySegment page, long offset, int begun) {
        // LoadLoad: the copies complete before the count is loaded again; pairs with the writer's barrier after it
        // made the count odd, so a copy that saw part of an update sees the count moved.
        VarHandle.acquireFence();
        // Opaque: a load the compiler must perform here, never merged with begin's.
        return (int) U32.getOpaque(page, offset) != begun;
    }

    /** As {@link #retry}, for a count {@link #begin16} read. */
    public static boolean retry16(MemorySegment page, long offset, int begun) {
        // LoadLoad: as in retry; pairs with the writer's barrier after its odd count.
        VarHandle.acquireFence();
        return Short.toUnsignedInt((short) U16.getOpaque(page, offset)) != begun;
    }

    /**
     * Paces a reader's attempts: the first {@link #SPIN_READS} go at once, later ones yield first, and once
     * {@link #SETTLE_BUDGET_NANOS} have passed since the first yield, after at least {@link #MIN_READS}
     * attempts, the reader gives up.
     *
     * @param attempt  the attempt about to be made, from 0
     * @param giveUpAt what the previous call returned (0 before the first)
     * @return what to pass next time, or {@link #GIVE_UP} (the count never settles: a writer stuck mid-update, or
     *         updating faster than a read completes)
     */
    public static long pace(int attempt, long giveUpAt) {
        if (attempt < SPIN_READS) {
            return giveUpAt;
        }
        long t = System.nanoTime();
        if (giveUpAt == 0) {
            giveUpAt = t + SETTLE_BUDGET_NANOS;
        } else if (t - giveUpAt > 0 && attempt >= MIN_READS) {
            return GIVE_UP;
        }
        Thread.yield();
        return giveUpAt;
    }

    /**
     * The reason a count never settled, one clause: {@code "never settled within 100 ms (65536 reads; now 7,
     * odd: writer stuck mid-update)"}.
     */
    public static String notSettled(int attempts, long countNow) {
        return "never settled within " + SETTLE_BUDGET_NANOS / 1_000_000 + " ms (" + attempts + " reads; now "
                + countNow + ((countNow & 1) != 0 ? ", odd: writer stuck mid-update)" : ", changing too fast)");
    }
}
