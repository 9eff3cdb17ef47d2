package org.timekeeping4j.tracking;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.TimexReading;

/** The steered rate the tracker feeds forward, from adjtimex fields, by the kernel's ntp.c rules. */
class SteeringWatchTest {

    private static TimexReading timex(int status, long offset, long freqScaledPpm, long constant, long tick) {
        return new TimexReading(0, status, offset, freqScaledPpm, 0, 0, constant, 1, 0, tick, 0);
    }

    @Test
    void frequencyTickAndPllSlewShouldAddUp() {
        assertThat(SteeringWatch.ratePpb(timex(0, 0, 0, 0, 10_000))).isZero();
        assertThat(SteeringWatch.ratePpb(timex(0, 0, 50L << 16, 0, 10_000))).isEqualTo(50_000);
        assertThat(SteeringWatch.ratePpb(timex(0, 0, -(50L << 16), 0, 10_000))).isEqualTo(-50_000);
        assertThat(SteeringWatch.ratePpb(timex(0, 0, 0, 0, 10_050))).isEqualTo(5_000_000); // +0.5%
        // STA_PLL | STA_NANO, 400 us left to slew, time constant 2: 400000 >> 4 ns per second.
        assertThat(SteeringWatch.ratePpb(timex(0x2001, 400_000, 0, 2, 10_000))).isEqualTo(25_000);
        // Microseconds without STA_NANO; no PLL term without STA_PLL.
        assertThat(SteeringWatch.ratePpb(timex(0x0001, 400, 0, 2, 10_000))).isEqualTo(25_000);
        assertThat(SteeringWatch.ratePpb(timex(0x2000, 400_000, 0, 2, 10_000))).isZero();
    }
}
