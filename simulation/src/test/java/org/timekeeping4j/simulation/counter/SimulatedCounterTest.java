package org.timekeeping4j.simulation.counter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SimulatedCounterTest {

    @Test
    void shouldWrapA32BitCounterAt24MHzEvery179Seconds() {
        SimulatedCounter c = SimulatedCounter.builder().widthBits(32).frequencyHz(24_000_000).build();
        long wrapNanos = (1L << 32) * 1_000_000_000L / 24_000_000L; // 178.956970666 s
        assertThat(c.cyclesAt(wrapNanos - 1_000)).isGreaterThan(0xFFFF_0000L);
        assertThat(c.cyclesAt(wrapNanos + 1_000)).isLessThan(0x1_0000L);
        c.setNanos(wrapNanos + 1_000);
        assertThat(c.read()).isEqualTo(c.cyclesAt(wrapNanos + 1_000));
    }

    @Test
    void shouldStartNearTheWrapAndCountAtTheErroneousFrequency() {
        SimulatedCounter c = SimulatedCounter.builder().widthBits(56).frequencyHz(1_000_000_000L)
                .startCycles((1L << 56) - 10).frequencyErrorPpb(1_000).build();
        assertThat(c.read()).isEqualTo((1L << 56) - 10);
        c.advanceNanos(1_000_000_000L);
        // 1 s at 1 GHz + 1000 ppb = 10^9 + 1000 cycles, wrapped at 2^56.
        assertThat(c.read()).isEqualTo(1_000_000_000L + 1_000 - 10);
    }

    @Test
    void shouldDriftQuadratically() {
        SimulatedCounter c = SimulatedCounter.builder().frequencyHz(1_000_000_000L).driftPpbPerSecond(100).build();
        // cycles(t) = t + 100e-18 * t^2 / 2; at t = 10 s: 10^10 + 100e-18 * 10^20 / 2 = 10^10 + 5000.
        assertThat(c.cyclesAt(10_000_000_000L)).isEqualTo(10_000_005_000L);
    }

    @Test
    void shouldRepeatTheSameJitterForTheSameSeed() {
        SimulatedCounter a = SimulatedCounter.builder().jitter(50, 42).build();
        SimulatedCounter b = SimulatedCounter.builder().jitter(50, 42).build();
        SimulatedCounter other = SimulatedCounter.builder().jitter(50, 43).build();
        boolean differs = false;
        for (int i = 0; i < 100; i++) {
            long va = a.read();
            assertThat(va).isEqualTo(b.read());
            assertThat(Math.abs(va)).isLessThanOrEqualTo(50);
            differs |= va != other.read();
        }
        assertThat(differs).isTrue();
    }

    @Test
    void shouldReadSplitRegistersWithoutTearingAcrossTheLowWordWrap() {
        SimulatedCounter c = SimulatedCounter.builder().widthBits(64).frequencyHz(1_000_000_000L)
                .startCycles(0xFFFF_FFFFL - 2).splitRegisters(1).build();
        // high read at cycle 2^32-3 (hi 0), low at 2^32-2, high again at 2^32-1 (hi 0): consistent.
        assertThat(c.read()).isEqualTo(0xFFFF_FFFEL);
        c.advanceNanos(1);
        // high at 2^32-2 (0), low at 2^32-1, high again at 2^32 (1): torn, retried from 2^32+1.
        assertThat(c.read()).isEqualTo(0x1_0000_0002L);
        assertThat(c.splitRetries()).isEqualTo(1);
    }

    @Test
    void shouldFollowAScaledRealClock() throws InterruptedException {
        SimulatedCounter c = SimulatedCounter.builder().scaledRealTime(1000.0).build();
        long a = c.read();
        Thread.sleep(2); // real time must pass: the counter follows it, 1000x faster
        assertThat(c.read()).isGreaterThan(a);
    }
}
