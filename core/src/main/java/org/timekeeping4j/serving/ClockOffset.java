package org.timekeeping4j.serving;

import org.timekeeping4j.ClockId;

/**
 * One clock's offset from another now, measured through the kernel's clocks: {@code other} read between two reads
 * of {@code base} and referred to their midpoint, so that the cost of a read (a system call where clock_gettime is
 * not in the vDSO) does not bias it; the narrowest of three brackets, as one stretched by preemption (or by an
 * emulator: clock_gettime takes microseconds under qemu-user) would move the midpoint by half its width.
 *
 * <p>Mutable, for one thread at a time: {@link #measure} fills it, allocating nothing.
 */
public final class ClockOffset {

    private long offset;
    private long width = Long.MAX_VALUE;

    /**
     * Measures {@code other - base} now.
     *
     * @param base  the clock read on both sides
     * @param other the clock read between them
     * @return this, filled
     */
    public ClockOffset measure(ClockId base, ClockId other) {
        long best = Long.MAX_VALUE;
        long off = 0;
        for (int i = 0; i < 3; i++) {
            long b0 = FastPath.kernelNanos(base);
            long o = FastPath.kernelNanos(other);
            long b1 = FastPath.kernelNanos(base);
            if (b1 - b0 < best) {
                best = b1 - b0;
                off = o - (b0 + (b1 - b0) / 2);
            }
        }
        offset = off;
        width = best;
        return this;
    }

    /** {@return other - base at the narrowest bracket's midpoint, ns} */
    public long offset() {
        return offset;
    }

    /** {@return the narrowest bracket's width, ns: the offset is right within half of it, and a read's cost} */
    public long width() {
        return width;
    }
}
