package org.timekeeping4j.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.SimulatedCounter;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The tracker's policy over a simulated counter and a simulated kernel: deterministic, no thread, no real clock.
 * The counter runs 30 ppm fast against its nominal frequency (MONOTONIC_RAW is simulated time); the kernel steers
 * MONOTONIC 12 ppm fast against MONOTONIC_RAW; every bracket is exact and {@value #WIDTH} ns wide unless a test
 * stretches one.
 */
class TrackingPolicyTest {

    static final long WIDTH = 40;
    static final long COUNTER_ERROR_PPB = 30_000;
    static final long STEERED_PPB = 12_000;

    /** A kernel whose clocks are functions of the simulated counter's time. */
    static final class SimulatedKernel implements TrackingPolicy.Environment {
        final SimulatedCounter counter;
        final long rawOrigin = 7_000_000_000L;
        long realtimeOffset = 1_764_000_000_000_000_000L;
        long boottimeOffset = 3_000_000_000L;
        int taiSeconds = 37;
        String clocksource = "tsc";
        long freqScaledPpm = (STEERED_PPB << 16) / 1000;
        private long monoAnchorTime;
        private long monoAnchorNanos = 5_000_000_000L;
        private long monoPpb = STEERED_PPB;
        /** A one-shot stretched MONOTONIC bracket: its width and how far its midpoint is off; 0 for none. */
        long stretchedWidth;
        long stretchedBias;

        SimulatedKernel(SimulatedCounter counter) {
            this.counter = counter;
        }

        long mono(long t) {
            long dt = t - monoAnchorTime;
            return monoAnchorNanos + dt + Math.round(dt * (monoPpb / 1e9));
        }

        long at(ClockId clock, long t) {
            return switch (clock) {
                case MONOTONIC_RAW -> rawOrigin + t;
                case MONOTONIC -> mono(t);
                case REALTIME -> mono(t) + realtimeOffset;
                case BOOTTIME -> mono(t) + boottimeOffset;
                case TAI -> mono(t) + realtimeOffset + taiSeconds * 1_000_000_000L;
                default -> throw new IllegalArgumentException(clock.toString());
            };
        }

        long now(ClockId clock) {
            return at(clock, counter.nanos());
        }

        /** The kernel's NTP code changes MONOTONIC's rate now, and adjtimex says so. */
        void steer(long ppb) {
            long t = counter.nanos();
            monoAnchorNanos = mono(t);
            monoAnchorTime = t;
            monoPpb = ppb;
            freqScaledPpm = (ppb << 16) / 1000;
        }

        @Override
        public void bracket(Clocksource cs, ClockId clock, int tries, Sample into) {
            long width = WIDTH;
            long bias = 0;
            if (clock == ClockId.MONOTONIC && stretchedWidth != 0) {
                width = stretchedWidth;
                bias = stretchedBias;
                stretchedWidth = 0;
            }
            counter.advanceNanos(width / 2);
            into.counter = cs.read();
            into.kernel = now(clock) + bias;
            into.width = width;
            counter.advanceNanos(width - width / 2);
        }

        @Override
        public void offsetBounds(ClockId base, ClockId other, int tries, long[] loHi) {
            long t = counter.nanos();
            long offset = at(other, t) - at(base, t);
            loHi[0] = offset - 20;
            loHi[1] = offset + 20;
            counter.advanceNanos(WIDTH);
        }

        @Override
        public long nanos(ClockId clock) {
            return now(clock);
        }

        @Override
        public TimexReading adjtimex() {
            return new TimexReading(0, 0, 0, freqScaledPpm, 0, 0, 0, 1, 0, 10_000, taiSeconds);
        }

        @Override
        public String currentClocksource() {
            return clocksource;
        }
    }

    private final SimulatedCounter counter = SimulatedCounter.builder().frequencyHz(1_000_000_000L)
            .frequencyErrorPpb(COUNTER_ERROR_PPB).startCycles(1L << 40).build();
    private final SimulatedKernel kernel = new SimulatedKernel(counter);
    private final TrackingPolicy policy = new TrackingPolicy(counter, kernel);
    private boolean serving;

    /** One interval of simulated time, then a step; the tracker's publication is played by {@link #serving}. */
    private TrackingPolicy.Verdict step() {
        return step(policy.nextInterval());
    }

    private TrackingPolicy.Verdict step(long intervalNanos) {
        counter.advanceNanos(intervalNanos);
        TrackingPolicy.Verdict v = policy.step(false, intervalNanos, serving);
        if (v == TrackingPolicy.Verdict.CONVERGED) {
            serving = true;
            policy.published();
        }
        return v;
    }

    /** Builds, and steps until the pair converges (within 5 s of simulated time), then {@code seconds} more. */
    private void converge(long seconds) {
        policy.build();
        long deadline = counter.nanos() + 5_000_000_000L;
        while (!serving) {
            assertThat(counter.nanos()).as("converged within 5 s").isLessThan(deadline);
            assertThat(step()).isIn(TrackingPolicy.Verdict.UPDATED, TrackingPolicy.Verdict.CONVERGED);
        }
        long end = counter.nanos() + seconds * 1_000_000_000L;
        while (counter.nanos() < end) {
            assertThat(step()).isEqualTo(TrackingPolicy.Verdict.UPDATED);
        }
    }

    /** Kernel minus ours for {@code clock}, now. */
    private long error(CounterClock clock) {
        Timekeeper tk = clock.raw() ? policy.raw() : policy.adjusted();
        return kernel.now(clock.clock()) - tk.convert(counter.read(), Publication.lineClock(clock));
    }

    @Test
    void theLongestIntervalShouldStayInsideTheFastPathsWindow() {
        assertThat(TrackingPolicy.maxInterval(1e9)).isEqualTo(TrackingPolicy.MAX_INTERVAL_NANOS);
        assertThat(TrackingPolicy.maxInterval(2.445e9)).isBetween(1_400_000_000L, 1_410_000_000L);
        for (double hz : new double[] {1e9, 2.445e9, 3e9, 5e9}) {
            double windowNanos = 4_294_967_296.0 / hz * 1e9;
            assertThat((double) TrackingPolicy.maxInterval(hz)).isLessThanOrEqualTo(0.8 * windowNanos);
        }
    }

    /**
     * The slope and the slew bring both lines onto the kernel's: each clock within a few ns, MONOTONIC's frequency
     * at the kernel's rate over the counter's (12 ppm over 30 ppm fast: -18 ppm), the interval grown to its longest.
     */
    @Test
    void theLinesShouldConvergeOnTheKernelsAndTheIntervalGrow() {
        converge(60);
        for (CounterClock clock : CounterClock.values()) {
            assertThat(error(clock)).as(clock.name()).isBetween(-3L, 3L);
        }
        double expected = ((1 + STEERED_PPB / 1e9) / (1 + COUNTER_ERROR_PPB / 1e9) - 1) * 1e9;
        assertThat((double) policy.monoPpb()).isCloseTo(expected, offset(5.0));
        assertThat((double) policy.rawPpb()).isCloseTo((1 / (1 + COUNTER_ERROR_PPB / 1e9) - 1) * 1e9,
                offset(5.0));
        assertThat(policy.nextInterval()).isEqualTo(TrackingPolicy.MAX_INTERVAL_NANOS);
        assertThat(policy.errorBoundNanos()).isBetween(0L, 3L);
        RawLine line = policy.rawLine();
        assertThat(line.frequencyHz()).isCloseTo(1e9 * (1 + COUNTER_ERROR_PPB / 1e9),
                offset(100.0));
    }

    /**
     * A stretched bracket (ten times the narrowest, its midpoint 150 ns off) is measured but neither slewed in nor
     * remembered: the next exact bracket finds the line still on the kernel's.
     */
    @Test
    void aStretchedBracketShouldNotBeSlewedIntoTheClock() {
        converge(5);
        long ppbBefore = policy.monoPpb();
        kernel.stretchedWidth = 10 * WIDTH;
        kernel.stretchedBias = 150;
        step(TrackingPolicy.INTERVAL_NANOS);
        assertThat(policy.lastMonoError()).as("the stretched bracket's error is measured").isBetween(147L, 153L);
        // Slewed in, it would have added 150 * GAIN / 50 ms = 1500 ppb.
        assertThat(Math.abs(policy.monoPpb() - ppbBefore)).isLessThan(10L);
        step(TrackingPolicy.INTERVAL_NANOS);
        assertThat(policy.lastMonoError()).isBetween(-3L, 3L);
    }

    /**
     * A change of the kernel's steered rate (adjtimex +50 ppm) is fed forward at the next step, and the interval
     * drops to its floor while the kernel's rate settles, then grows again.
     */
    @Test
    void aSteeringChangeShouldBeFedForwardAndShortenTheInterval() {
        converge(30);
        assertThat(policy.nextInterval()).isEqualTo(TrackingPolicy.MAX_INTERVAL_NANOS);
        long interval = policy.nextInterval();
        counter.advanceNanos(interval);
        kernel.steer(STEERED_PPB + 50_000); // at the end of the interval: nothing accumulated before the step
        assertThat(policy.step(false, interval, true)).isEqualTo(TrackingPolicy.Verdict.UPDATED);
        assertThat(policy.lastSteeringChange()).contains("+50000 ppb");
        long settleEnd = counter.nanos() + SteeringWatch.SETTLE_NANOS;
        while (counter.nanos() + TrackingPolicy.INTERVAL_NANOS < settleEnd) {
            assertThat(policy.nextInterval()).isEqualTo(TrackingPolicy.INTERVAL_NANOS);
            step(TrackingPolicy.INTERVAL_NANOS);
            // Without the feed-forward: 50 ppm over 50 ms, 2,500 ns at the first step.
            assertThat(policy.lastMonoError()).isBetween(-5L, 5L);
        }
        for (int i = 0; i < 10; i++) {
            step();
        }
        assertThat(policy.nextInterval()).isGreaterThan(TrackingPolicy.INTERVAL_NANOS);
        assertThat(error(CounterClock.MONOTONIC)).isBetween(-3L, 3L);
    }

    /**
     * A daemon that changes the kernel's rate every second for a minute, at a moment unrelated to the tracker's
     * steps (chronyd does about this): once past the fast phase no interval is below the floor, so the updates
     * in the minute are at most one per {@link TrackingPolicy#INTERVAL_NANOS}; and each change costs MONOTONIC at
     * most what accumulates before the next step feeds it forward (the change times one floor interval).
     */
    @Test
    void updatesShouldNeverComeFasterThanTheFloorWhileADaemonSteersEverySecond() {
        converge(5);
        long start = counter.nanos();
        long nextChange = start + 1_000_000_000L;
        int steps = 0;
        long worstSettled = 0;
        while (counter.nanos() - start < 60_000_000_000L) {
            long interval = policy.nextInterval();
            assertThat(interval).as("interval %d s into the steering", (counter.nanos() - start) / 1_000_000_000L)
                    .isGreaterThanOrEqualTo(TrackingPolicy.INTERVAL_NANOS);
            long end = counter.nanos() + interval;
            if (nextChange < end) { // the daemon changes the rate inside this interval, by up to 2 ppm
                counter.advanceNanos(nextChange - counter.nanos());
                kernel.steer(STEERED_PPB + ((steps * 7919L) % 2_001) - 1_000);
                nextChange += 1_000_000_000L;
            }
            counter.advanceNanos(end - counter.nanos());
            assertThat(policy.step(false, interval, true)).isEqualTo(TrackingPolicy.Verdict.UPDATED);
            steps++;
            if (counter.nanos() - start > 3_000_000_000L) { // the first change fell into a converged, long interval
                worstSettled = Math.max(worstSettled, Math.abs(policy.lastMonoError()));
            }
        }
        assertThat(steps).as("updates in 60 s")
                .isBetween(60, (int) (60_000_000_000L / TrackingPolicy.INTERVAL_NANOS));
        // A change is fed forward at the first step after it: until then MONOTONIC drifts by the change (2 ppm at
        // most) over at most one floor interval, 100 ns; the slew takes it out in the intervals that follow.
        assertThat(worstSettled).as("worst MONOTONIC error at a step while steered")
                .isLessThanOrEqualTo(2_000 * TrackingPolicy.INTERVAL_NANOS / 1_000_000_000L + 5);
    }

    /**
     * A suspend (BOOTTIME - MONOTONIC grows by the time asleep) found while following the offsets ends the step
     * with a rebuild, whose new pair converges onto the kernel's BOOTTIME.
     */
    @Test
    void aSuspendShouldRebuildAndTheNewPairFollowBoottime() {
        converge(5);
        kernel.boottimeOffset += 30_000_000_000L; // 30 s asleep
        TrackingPolicy.Verdict v = TrackingPolicy.Verdict.UPDATED;
        for (int i = 0; i < 8 && v == TrackingPolicy.Verdict.UPDATED; i++) { // the offsets are followed every 4th step
            v = step();
        }
        assertThat(v).isEqualTo(TrackingPolicy.Verdict.REBUILD);
        assertThat(policy.why()).contains("suspended").contains("30000000000 ns");
        serving = false;
        converge(1);
        for (CounterClock clock : CounterClock.values()) {
            assertThat(error(clock)).as(clock.name()).isBetween(-3L, 3L);
        }
    }

    /** Verdicts on kernel events: a jump of the counter against the kernel rebuilds, a new clocksource stops. */
    @Test
    void aJumpShouldRebuildAndANewClocksourceShouldStop() {
        converge(1);
        kernel.steer(STEERED_PPB); // re-anchor, then move MONOTONIC 1 ms on: a discontinuity
        kernel.monoAnchorNanos += 1_000_000;
        assertThat(step()).isEqualTo(TrackingPolicy.Verdict.REBUILD);
        assertThat(policy.why()).startsWith("phase error");
        serving = false;
        converge(1);
        kernel.clocksource = "hpet";
        counter.advanceNanos(TrackingPolicy.CLOCKSOURCE_CHECK_NANOS);
        assertThat(step()).isEqualTo(TrackingPolicy.Verdict.STOP);
        assertThat(policy.why()).contains("from tsc to hpet");
    }
}
