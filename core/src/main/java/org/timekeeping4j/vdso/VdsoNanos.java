package org.timekeeping4j.vdso;

/**
 * A counter value in a clock's nanoseconds by the kernel's vDSO data: the result of {@link KernelVdso#convert};
 * caller-owned, reusable.
 */
public final class VdsoNanos {
    /** The base's state the conversion read (reused: a conversion allocates nothing). */
    final VdsoFormula.BaseState state = new VdsoFormula.BaseState();
    /** {@link KernelVdso#convertPast}'s copies of the history's sets (2, and the mult range) and of the one now. */
    long[] sets;
    long[] current;
    long nanos;
    boolean exact;
    long bound;
    long cycleLast;
    int mult;
    int shift;

    /** The clock's nanoseconds at the counter value. */
    public long nanos() {
        return nanos;
    }

    /**
     * True when the value is what a read at the counter value returned: {@link KernelVdso#convertPast}, where the
     * history shows which set served it; {@link KernelVdso#convert}, where it lies in the current set's update
     * window: at or after its cycle_last (a counter value read under that set, where {@link #seq} is the count
     * loaded before the read, is exact; otherwise a daemon's frequency change, which keeps cycle_last, may have
     * come between).
     */
    public boolean exact() {
        return exact;
    }

    /**
     * How far the value may be from what the clock read at the counter value, ns: 0 where exact; from
     * {@link KernelVdso#convertPast}, the difference its candidate sets give, or the rate difference the history saw times
     * the span it did not see; {@link Long#MAX_VALUE} where nothing bounds it.
     */
    public long bound() {
        return bound;
    }

    /** The data's seq count {@link KernelVdso#convert} read the state under (compare {@link KernelVdso#seq}). */
    public int seq() {
        return state.seq;
    }

    /** The kernel's cycle_last of the state used. */
    public long cycleLast() {
        return cycleLast;
    }

    /** The kernel's mult of the state used. */
    public int mult() {
        return mult;
    }

    /** The kernel's shift of the state used. */
    public int shift() {
        return shift;
    }
}
