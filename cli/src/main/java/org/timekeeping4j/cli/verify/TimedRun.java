package org.timekeeping4j.cli.verify;

import java.util.ArrayList;
import java.util.List;
import org.timekeeping4j.cli.path.PathReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs worker threads for a fixed time: they poll {@link #running()} between batches, the coordinator clears it
 * after the duration and joins them.
 */
final class TimedRun {

    // Written once by the coordinator after the duration; workers poll it between batches. volatile: the store
    // must become visible to the spinning workers (a plain field could be hoisted out of their loops).
    private volatile boolean running = true;

    boolean running() {
        return running;
    }

    /** Reads taken by {@link #warm} before a timed run. */
    static final int WARM_READS = 2_000;

    /**
     * Reads {@code reader} a few thousand times on the calling thread, so that the timed run measures the clock and
     * not first-use costs: the first read of a path links its FFM downcall and initialises its classes, which took
     * most of a 0.2 s run on a loaded machine (128 reads in 0.2 s instead of millions).
     */
    static void warm(PathReader reader) {
        long sink = 0;
        for (int i = 0; i < WARM_READS; i++) {
            sink += reader.readNanos();
        }
        if (sink == 42) { // never true in practice; keeps the reads from being dropped
            Thread.onSpinWait();
        }
    }

    /** The body of worker thread {@code index}: loops while {@code run.running()}. */
    interface Worker {
        void work(int index, TimedRun run);
    }

    /** How long the coordinator waits for every worker to be running before it starts the clock anyway. */
    static final long START_TIMEOUT_NANOS = 10_000_000_000L;

    /**
     * Starts {@code threads} threads running {@code worker}, waits until all of them run (a loaded machine can
     * leave a new thread unscheduled for longer than a short cell: it then made no read at all), then
     * {@code nanos}, stops and joins them.
     */
    static void run(int threads, long nanos, Worker worker) {
        new TimedRun().runWith(threads, nanos, worker);
    }

    private void runWith(int threads, long nanos, Worker worker) {
        List<Thread> started = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        CountDownLatch allRunning = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = Thread.ofPlatform().name("tk4j-verify-" + i).daemon().unstarted(() -> {
                allRunning.countDown();
                worker.work(index, this);
            });
            t.setUncaughtExceptionHandler((th, e) -> {
                synchronized (failure) {
                    if (failure[0] == null) {
                        failure[0] = e;
                    }
                }
                running = false;
            });
            started.add(t);
        }
        started.forEach(Thread::start);
        try {
            allRunning.await(START_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long end = System.nanoTime() + nanos;
        for (long left; running && (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(Math.min(left, 50_000_000L));
        }
        running = false;
        for (Thread t : started) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining " + t.getName(), e);
            }
        }
        synchronized (failure) {
            if (failure[0] instanceof RuntimeException re) {
                throw re;
            } else if (failure[0] != null) {
                throw new IllegalStateException(failure[0]);
            }
        }
    }
}
