package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.testing.HostSteering;

/**
 * Exact mode while the kernel clock is steered as a time daemon steers it: frequency flips of +-50 ppm every
 * 200 ms, a PLL offset slew, a tick change, and a step forward and back. A reader thread checks every
 * Clocks.nanos read against the clock_gettime reads around it: 0 ns outside, over the whole run. Runs only where
 * {@link HostSteering} allows it (opted in, CAP_SYS_TIME, no other steering); the clock state is restored in a
 * finally block.
 */
class SteeredAgreementTest {

    private static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW,
            ClockId.BOOTTIME, ClockId.TAI};

    @Test
    void exactReadsShouldStayInsideTheKernelsBracketWhileTheClockIsSteered() throws Exception {
        KernelVdsoTest.assumeExactModePossible();
        HostSteering.assumeMaySteer();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        AtomicLong outside = new AtomicLong();
        AtomicLong stepped = new AtomicLong();
        StringBuilder first = new StringBuilder();
        Thread reader = Thread.ofPlatform().name("bracket-reader").start(() -> {
            while (!stop.get()) {
                for (ClockId c : CLOCKS) {
                    for (int i = 0; i < 1000; i++) {
                        long k0 = LinuxTime.clockGettimeNanos(c.id());
                        long v = Clocks.nanos(c);
                        long k1 = LinuxTime.clockGettimeNanos(c.id());
                        if (k1 - k0 < 0) {
                            stepped.incrementAndGet(); // the kernel itself stepped back inside the bracket
                            continue;
                        }
                        if (v - k0 < 0 || k1 - v < 0) {
                            if (outside.getAndIncrement() == 0) {
                                synchronized (first) {
                                    first.append(c).append(": ").append(k0).append(" <= ").append(v)
                                            .append(" <= ").append(k1).append(" fails");
                                }
                            }
                        }
                    }
                    reads.addAndGet(1000);
                }
            }
        });
        long minMult = Long.MAX_VALUE;
        long maxMult = 0;
        try (ClockSteering steer = new ClockSteering()) {
            for (int i = 0; i < 10; i++) { // +-50 ppm every 200 ms
                steer.frequencyPpm(i % 2 == 0 ? 50 : -50);
                Thread.sleep(200);
                long mult = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).mult(); // what the kernel converts with now
                minMult = Math.min(minMult, mult);
                maxMult = Math.max(maxMult, mult);
            }
            steer.frequencyPpm(0);
            steer.pllOffsetNanos(400_000); // the kernel slews 0.4 ms through its PLL
            Thread.sleep(1000);
            steer.tickMicros(10_050); // +0.5%: every tick is longer
            Thread.sleep(500);
            steer.tickMicros(10_000);
            steer.step(1_000_000_000L); // a step forward, then back (close undoes the net step)
            Thread.sleep(200);
            steer.step(-1_000_000_000L);
            Thread.sleep(200);
        } finally {
            stop.set(true);
            reader.join();
        }
        assertThat(reads.get()).as("reads").isGreaterThan(10_000);
        // The steering reached the kernel: its mult moved by the flips' 100 ppm (less a dithering margin).
        assertThat((maxMult - minMult) / (double) minMult).as("mult range %d..%d", minMult, maxMult)
                .isGreaterThan(90e-6);
        synchronized (first) {
            assertThat(outside.get()).as("reads outside their bracket of %d (first: %s)", reads.get(), first)
                    .isZero();
        }
    }
}
