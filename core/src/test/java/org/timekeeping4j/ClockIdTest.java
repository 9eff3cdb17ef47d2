package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClockIdTest {

    @Test
    void shouldCarryTheKernelsNumbers() {
        assertThat(ClockId.REALTIME.id()).isZero();
        assertThat(ClockId.MONOTONIC.id()).isEqualTo(1);
        assertThat(ClockId.PROCESS_CPUTIME_ID.id()).isEqualTo(2);
        assertThat(ClockId.THREAD_CPUTIME_ID.id()).isEqualTo(3);
        assertThat(ClockId.MONOTONIC_RAW.id()).isEqualTo(4);
        assertThat(ClockId.REALTIME_COARSE.id()).isEqualTo(5);
        assertThat(ClockId.MONOTONIC_COARSE.id()).isEqualTo(6);
        assertThat(ClockId.BOOTTIME.id()).isEqualTo(7);
        assertThat(ClockId.REALTIME_ALARM.id()).isEqualTo(8);
        assertThat(ClockId.BOOTTIME_ALARM.id()).isEqualTo(9);
        assertThat(ClockId.TAI.id()).isEqualTo(11);
        for (int n = 0; n < 8; n++) {
            assertThat(ClockId.valueOf("AUX_" + n).id()).isEqualTo(16 + n);
        }
        assertThat(ClockId.values()).hasSize(19);
    }

    @Test
    void shouldRoundTripEveryId() {
        for (ClockId c : ClockId.values()) {
            assertThat(ClockId.of(c.id())).isSameAs(c);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 12, 13, 14, 15, -1, 24, 1000, Integer.MIN_VALUE})
    void shouldRejectIdsThatAreNoLinuxClockNamingTheIdAndTheValidOnes(int id) {
        assertThatThrownBy(() -> ClockId.of(id))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("clock id " + id + " ")
                .hasMessageContaining(id == 10 ? "CLOCK_SGI_CYCLE" : id < 0 ? "a CPU-time or fd clock" : "ids 0-9, 11, 16-23");
    }

    @Test
    void shouldNameClocksAsTheKernelDoes() {
        assertThat(ClockId.MONOTONIC_RAW.kernelName()).isEqualTo("CLOCK_MONOTONIC_RAW");
        assertThat(ClockId.AUX_3.kernelName()).isEqualTo("CLOCK_AUX+3");
        assertThat(ClockId.TAI.isEpochBased()).isTrue();
        assertThat(ClockId.BOOTTIME.isEpochBased()).isFalse();
    }
}
