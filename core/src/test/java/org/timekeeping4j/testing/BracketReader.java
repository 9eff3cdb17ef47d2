package org.timekeeping4j.testing;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * A platform thread checking every Clocks.nanos read of some clocks against the clock_gettime reads around it,
 * and that the reads of each clock never go back unless the test steps that clock (REALTIME when the date is
 * set or a leap second passes; TAI too when REALTIME is stepped). A bracket whose kernel reads themselves went
 * back (a step inside it) is counted, not checked. For the tests that change clock state while the library
 * reads: open it, change the clock, close it, then assert on the counts.
 */
public final class BracketReader implements AutoCloseable {

    private static final int BATCH = 100;

    /** Bracketed reads done. */
    public final AtomicLong reads = new AtomicLong();
    /** Reads outside their bracket. */
    public final AtomicLong outside = new AtomicLong();
    /** Reads of a clock that may not go back, below the read before. */
    public final AtomicLong backwards = new AtomicLong();
    /** Brackets whose own kernel reads went back (a step inside them), left unchecked. */
    public final AtomicLong steppedBrackets = new AtomicLong();
    /**
     * Kernel reads of a clock that may not go back below the kernel's read before them (the kernel's own clock
     * went back between two brackets), with the first in {@link #firstKernelBackwards()}.
     */
    public final AtomicLong kernelBackwards = new AtomicLong();
    private final StringBuilder firstKernel = new StringBuilder();
    private final StringBuilder first = new StringBuilder();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    /**
     * Starts reading {@code clocks} in turn, {@value #BATCH} bracketed reads at a time; {@code mayGoBack} names
     * the clocks the test steps back (their reads are only bracketed).
     */
    public BracketReader(Set<ClockId> mayGoBack, ClockId... clocks) {
        thread = Thread.ofPlatform().name("bracket-reader").start(() -> {
            long[] last = new long[clocks.length];
            Arrays.fill(last, Long.MIN_VALUE);
            long[] lastKernel = new long[clocks.length];
            Arrays.fill(lastKernel, Long.MIN_VALUE);
            while (!stop.get()) {
                for (int c = 0; c < clocks.length; c++) {
                    ClockId clock = clocks[c];
                    for (int i = 0; i < BATCH; i++) {
                        long k0 = ClockGettimeStub.clockGettimeNanos(clock.id());
                        long v = Clocks.nanos(clock);
                        long k1 = ClockGettimeStub.clockGettimeNanos(clock.id());
                        if (k1 - k0 < 0) {
                            steppedBrackets.incrementAndGet();
                            last[c] = Long.MIN_VALUE;
                            continue;
                        }
                        if (!mayGoBack.contains(clock) && lastKernel[c] != Long.MIN_VALUE && k0 - lastKernel[c] < 0
                                && kernelBackwards.getAndIncrement() == 0) {
                            synchronized (firstKernel) {
                                firstKernel.append(clock + ": the kernel's " + k0 + " after its " + lastKernel[c]);
                            }
                        }
                        lastKernel[c] = k1;
                        if (v - k0 < 0 || k1 - v < 0) {
                            note(outside, clock + ": " + k0 + " <= " + v + " <= " + k1 + " fails");
                        }
                        if (!mayGoBack.contains(clock) && last[c] != Long.MIN_VALUE && v - last[c] < 0) {
                            note(backwards, clock + ": " + v + " after " + last[c]);
                        }
                        last[c] = v;
                    }
                    reads.addAndGet(BATCH);
                }
            }
        });
    }

    private void note(AtomicLong counter, String what) {
        if (counter.getAndIncrement() == 0) {
            synchronized (first) {
                first.append(what);
            }
        }
    }

    /** The first kernel read below the kernel's read before it, as text; empty when there was none. */
    public String firstKernelBackwards() {
        synchronized (firstKernel) {
            return firstKernel.toString();
        }
    }

    /** The first read outside its bracket or going back, as text; empty when there was none. */
    public String firstFailure() {
        synchronized (first) {
            return first.toString();
        }
    }

    /** Stops the thread and waits for it: the counts are final afterwards. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
