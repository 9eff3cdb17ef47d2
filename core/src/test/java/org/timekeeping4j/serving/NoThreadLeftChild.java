package org.timekeeping4j.serving;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Diagnostics;

/**
 * The child of {@link NoThreadLeftTest}: starts parked daemon threads until the kernel refuses one, then makes the
 * library's first reads and prints what they did. Uses the library and the JDK only (it runs as nobody, who cannot
 * read the test libraries in the builder's home).
 */
public final class NoThreadLeftChild {

    private NoThreadLeftChild() {}

    /**
     * {@code first}: exhausts the threads, then makes the first reads. {@code rediscover}: reaches exact mode
     * first, exhausts the threads, then asks for a re-discovery (as a restored checkpoint does) and reads.
     */
    public static void main(String[] args) throws InterruptedException {
        boolean rediscover = args.length > 0 && args[0].equals("rediscover");
        if (rediscover) {
            Clocks.nanos(ClockId.MONOTONIC);
            System.out.println("first discovery: exact " + Clocks.awaitExactMode(Duration.ofSeconds(60)) + ", stage "
                    + Clocks.diagnostics().stage());
        }
        CountDownLatch release = new CountDownLatch(1);
        int parked = 0;
        Throwable refused = null;
        while (refused == null && parked < 100_000) {
            Thread t = new Thread(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.setDaemon(true);
            try {
                t.start();
                parked++;
            } catch (OutOfMemoryError e) {
                refused = e;
            }
        }
        System.out.println("refused after " + parked + " threads: " + refused);
        if (rediscover) {
            FastPath.rediscover("asked by the test");
        }
        long before = System.nanoTime();
        long m = Clocks.nanos(ClockId.MONOTONIC); // a first read would start the discovery thread here
        System.out.println("monotonic " + (m > 0 ? "ok" : "bad " + m));
        long b = Clocks.nanos(ClockId.BOOTTIME);
        System.out.println("boottime " + (b > 0 ? "ok" : "bad " + b));
        long r = Clocks.nanos(ClockId.REALTIME);
        System.out.println("realtime " + (r > 1_600_000_000_000_000_000L ? "ok" : "bad " + r));
        System.out.println("exact " + Clocks.awaitExactMode(Duration.ofSeconds(1))); // returns once settled
        Diagnostics d = Clocks.diagnostics();
        System.out.println("stage " + d.stage());
        System.out.println("why " + d.why());
        long after = Clocks.nanos(ClockId.MONOTONIC);
        System.out.println("monotonic again " + (after >= m && m - before > -1_000_000_000L ? "ok" : "bad"));
        release.countDown();
    }
}
