package org.timekeeping4j.timekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.simulation.counter.SimulatedCounter;

/**
 * The analog of selftests/timers/skew_consistency: the frequency flips between +500 and -500 ppm every
 * 500 ms of simulated time while two threads read every clock back to back; no clock may go backwards.
 * The counter follows the real clock scaled 200x, so simulated time moves during the writer's window.
 * Runs ~2 s by default; {@code -Dtk4j.skew.seconds=600} for the selftest's length.
 */
class SkewConsistencyTest {

    private static final long NS = 1_000_000_000L;

    @Test
    void shouldNeverGoBackwardsWhileTheFrequencyFlipsBetweenPlusAndMinus500Ppm() throws Exception {
        long seconds = Long.getLong("tk4j.skew.seconds", 2);
        SimulatedCounter counter = SimulatedCounter.builder().widthBits(56).frequencyHz(24_000_000)
                .startCycles((1L << 56) - 24_000_000L).scaledRealTime(200.0).build();
        NtpAdjuster ntp = new NtpAdjuster();
        Timekeeper tk = Timekeeper.builder(counter).adjustment(ntp).realtimeNanos(1_700_000_000L * NS).build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        Runnable reader = () -> {
            long[] last = new long[7];
            long[] now = new long[7];
            while (!stop.get() && failure.get() == null) {
                now[5] = tk.monotonicCoarseNanos(); // coarse first: the fine read after it must not be behind it
                now[0] = tk.monotonicNanos();
                now[1] = tk.monotonicRawNanos();
                now[2] = tk.boottimeNanos();
                now[3] = tk.realtimeNanos();
                now[4] = tk.taiNanos();
                now[6] = tk.realtimeCoarseNanos();
                for (int i = 0; i < now.length; i++) {
                    if (now[i] < last[i]) {
                        failure.compareAndSet(null, "clock " + i + " went back by " + (last[i] - now[i]) + " ns");
                    }
                    last[i] = now[i];
                }
                if (now[5] > now[0]) {
                    failure.compareAndSet(null, "MONOTONIC_COARSE " + now[5] + " ahead of the MONOTONIC read after it " + now[0]);
                }
            }
        };
        Thread r1 = new Thread(reader, "reader-1");
        Thread r2 = new Thread(reader, "reader-2");
        r1.start();
        r2.start();
        long end = System.nanoTime() + seconds * NS;
        long nextFlip = counter.nanos() + NS / 2;
        long sign = 1;
        long flips = 0;
        try {
            while (System.nanoTime() < end && failure.get() == null) {
                if (counter.nanos() >= nextFlip) {
                    ntp.setFrequencyPpb(sign * NtpAdjuster.MAX_FREQUENCY_PPB);
                    sign = -sign;
                    nextFlip += NS / 2;
                    flips++;
                }
                tk.update();
                // 2 ms real = 400 ms simulated between updates: a mis-pivoted update would jump by ~400 us,
                // far more than simulated time moves between two reads (~0.5 us real = 100 us simulated).
                Thread.sleep(2);
            }
        } finally {
            stop.set(true);
            r1.join();
            r2.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(flips).isGreaterThan(10);
    }
}
