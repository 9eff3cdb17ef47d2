package org.timekeeping4j.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.testing.HostSteering;
import org.timekeeping4j.testing.KernelClock;

/** A tracker of the test's own on this machine's counter, with failures injected at the counter. */
class KernelTrackerTest {

    /** The hardware counter plus an offset the test can jump: a counter discontinuity, as after resume. */
    static final class JumpingCounter extends Clocksource {
        final Clocksource real;
        volatile long offset;

        JumpingCounter(Clocksource real) {
            super(real.name(), real.widthBits(), real.frequencyHz(), real.rating(), true, real.isOrdered());
            this.real = real;
        }

        @Override
        public long read() {
            return real.read() + offset; // volatile load before the ordered counter read
        }
    }

    private static Clocksource hardware() {
        CounterSelection s = CounterSelector.selected();
        assumeTrue(s.isHardware(), "no trusted hardware counter on this machine: " + s.rejected());
        return s.clocksource();
    }

    @Test
    void closeShouldEndTheUpdaterAndLeaveTheKernelServingWithoutGoingBack() {
        KernelTracker t = KernelTracker.start(hardware());
        assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).as(t.status().toString()).isTrue();
        long last = t.nanos(ClockId.MONOTONIC);
        t.close();
        assertThat(t.isClosed()).isTrue();
        assertThat(t.isTracking()).isFalse();
        assertThat(t.status().reason()).startsWith("stopped");
        assertThat(Thread.getAllStackTraces().keySet().stream()
                .filter(th -> th.getName().equals("timekeeping4j-tracker") && th.isAlive()).count())
                .as("only the process-wide tracker may remain").isLessThanOrEqualTo(1);
        for (int i = 0; i < 100_000; i++) {
            long now = t.nanos(ClockId.MONOTONIC);
            assertThat(now).isGreaterThanOrEqualTo(last);
            last = now;
        }
    }

    @Test
    void aCounterJumpShouldReanchorWithoutAnyClockGoingBackwards() throws Exception {
        JumpingCounter counter = new JumpingCounter(hardware());
        KernelTracker t = KernelTracker.start(counter);
        try {
            assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).isTrue();
            long[] last = new long[ClockId.values().length];
            ClockId[] clocks = {ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME};
            for (ClockId c : clocks) {
                last[c.ordinal()] = t.nanos(c);
            }
            // 1 ms of cycles forward: the tracker sees a phase error far beyond its bound.
            counter.offset += (long) (counter.frequencyHz() / 1000);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (t.status().rebuilds() == 0 && System.nanoTime() < deadline) {
                for (ClockId c : clocks) {
                    long now = t.nanos(c);
                    assertThat(now).as(c.name()).isGreaterThanOrEqualTo(last[c.ordinal()]);
                    last[c.ordinal()] = now;
                }
            }
            assertThat(t.status().rebuilds()).isPositive();
            assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).as(t.status().toString()).isTrue();
            for (int i = 0; i < 200_000; i++) {
                for (ClockId c : clocks) {
                    long now = t.nanos(c);
                    assertThat(now).as(c.name()).isGreaterThanOrEqualTo(last[c.ordinal()]);
                    last[c.ordinal()] = now;
                }
            }
            // Back on the counter and following the kernel again.
            long before = Clocks.kernelNanos(ClockId.MONOTONIC);
            long fast = t.nanos(ClockId.MONOTONIC);
            long after = Clocks.kernelNanos(ClockId.MONOTONIC);
            assertThat(fast).isBetween(before - 1_000_000, after + 1_000_000);
        } finally {
            t.close();
        }
    }

    @Test
    void aCounterThatKeepsJumpingShouldBeGivenUpForTheKernel() {
        JumpingCounter counter = new JumpingCounter(hardware());
        KernelTracker t = KernelTracker.start(counter);
        try {
            assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).isTrue();
            long last = t.nanos(ClockId.MONOTONIC);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!t.status().reason().startsWith("stopped") && System.nanoTime() < deadline) {
                counter.offset += (long) (counter.frequencyHz() / 1000);
                for (int i = 0; i < 20_000; i++) {
                    long now = t.nanos(ClockId.MONOTONIC);
                    assertThat(now).isGreaterThanOrEqualTo(last);
                    last = now;
                }
            }
            assertThat(t.status().reason()).startsWith("stopped: phase errors");
            assertThat(t.isTracking()).isFalse();
            long before = Clocks.kernelNanos(ClockId.MONOTONIC);
            assertThat(t.nanos(ClockId.MONOTONIC)).isGreaterThanOrEqualTo(before);
        } finally {
            t.close();
        }
    }

    @Test
    void aRealtimeStepShouldBeFollowedAndBumpClockWasSet() throws Throwable {
        HostSteering.assumeMaySteer();
        KernelTracker t = KernelTracker.start(hardware());
        try {
            assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).isTrue();
            assumeTrue(t.status().timerfdProblem() == null, t.status().timerfdProblem());
            int seqBefore = t.timekeeper(ClockId.REALTIME).clockWasSetSeq();
            long monoBefore = t.nanos(ClockId.MONOTONIC);
            // clock_settime(CLOCK_REALTIME, now): a step of well under a microsecond, but a step: the kernel
            // runs clock_was_set() and cancels TFD_TIMER_CANCEL_ON_SET timers.
            KernelClock.settime(ClockId.REALTIME.id(), Clocks.kernelNanos(ClockId.REALTIME));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (t.timekeeper(ClockId.REALTIME) == null
                    || t.timekeeper(ClockId.REALTIME).clockWasSetSeq() == seqBefore) {
                assertThat(System.nanoTime()).as("REALTIME step not followed").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(t.nanos(ClockId.MONOTONIC)).as("MONOTONIC is untouched by the step")
                    .isGreaterThanOrEqualTo(monoBefore);
            long before = Clocks.kernelNanos(ClockId.REALTIME);
            long fast = t.nanos(ClockId.REALTIME);
            long after = Clocks.kernelNanos(ClockId.REALTIME);
            assertThat(fast).isBetween(before - 1_000, after + 1_000);
        } finally {
            t.close();
        }
    }

    /**
     * A frequency change made through adjtimex (where {@link HostSteering} allows it) is seen at the tracker's
     * next update (SteeringWatch): fed forward, the MONOTONIC slope restarted from the samples after it, the
     * interval shortened. Within a second of a +50 ppm step the tracker's MONOTONIC phase error is back under
     * 2 us; without the watch (checked by disabling it) the tracker waits for its 60 s slope and fails here. The
     * clock state is restored in finally.
     */
    @Test
    void aFrequencyChangeShouldBeFedForwardAtTheNextUpdate() throws Throwable {
        Clocksource cs = hardware();
        HostSteering.assumeMaySteer();
        TimexReading before = LinuxTime.clockAdjtimeRead(0);
        try (KernelTracker t = KernelTracker.start(cs)) {
            assertThat(t.awaitTracking(20, TimeUnit.SECONDS)).as(t.status().reason()).isTrue();
            KernelClock.setFrequency(ClockId.REALTIME.id(), before.freq() + (50L << 16));
            Thread.sleep(1000);
            long err = Math.abs(t.status().monoErrorNanos());
            assertThat(t.lastSteeringChange()).contains("+50000 ppb");
            assertThat(err).as("phase error 1 s after +50 ppm (bound %d ns)", t.errorBoundNanos())
                    .isLessThan(2_000);
        } finally {
            KernelClock.setFrequency(ClockId.REALTIME.id(), before.freq());
        }
    }
}
