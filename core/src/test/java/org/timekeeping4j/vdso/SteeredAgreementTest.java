package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.testing.BracketReader;
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
        steerAndCheck();
    }

    /**
     * Steers the kernel's clock as a daemon does while a reader checks every exact read against its bracket, and
     * asserts 0 outside and none backwards; the caller has checked that it may steer. VclockHostTest runs it on
     * kvm-clock.
     */
    static void steerAndCheck() throws Exception {
        // REALTIME and TAI are stepped below; the other clocks' reads may never go back.
        BracketReader reader = new BracketReader(Set.of(ClockId.REALTIME, ClockId.TAI), CLOCKS);
        long[] mult;
        try (ClockSteering steer = new ClockSteering()) {
            // The sleeps below let time pass on purpose: the kernel runs its ticks under that steering while the
            // reader checks every read against its bracket; nothing is awaited (the mult range is asserted after).
            mult = steer.flipFrequency(10, 50, 200_000_000L, null); // +-50 ppm every 200 ms
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
            reader.close();
        }
        System.out.println("steered: " + reader.reads.get() + " bracketed reads, " + reader.outside.get()
                + " outside, " + reader.backwards.get() + " backwards, the kernel's own reads back "
                + reader.kernelBackwards.get() + " times " + reader.firstKernelBackwards() + "; "
                + reader.firstFailure());
        assertThat(reader.reads.get()).as("reads").isGreaterThan(10_000);
        // The steering reached the kernel: its mult moved by the flips' 100 ppm (less a dithering margin).
        assertThat((mult[1] - mult[0]) / (double) mult[0]).as("mult range %d..%d", mult[0], mult[1])
                .isGreaterThan(90e-6);
        assertThat(reader.outside.get()).as("reads outside their bracket of %d (first: %s)", reader.reads.get(),
                reader.firstFailure()).isZero();
        assertThat(reader.backwards.get()).as("MONOTONIC, MONOTONIC_RAW or BOOTTIME going back (first: %s)",
                reader.firstFailure()).isZero();
    }
}
