package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.TimexReading;

class SyncStatusTest {

    @Test
    void shouldReadTheKernelsNtpStateWithoutPrivilege() {
        SyncStatus s = SyncStatus.read();
        assertThat(s.isAvailable()).as(s.availability()).isTrue();
        TimexReading t = s.timexReading();
        // Constants of the kernel's NTP code that prove the struct offsets are right:
        // tolerance = MAXFREQ_SCALED = 500 ppm << 16; tick = 10^6 / USER_HZ(100) us.
        assertThat(t.tolerance()).isEqualTo(500L << 16);
        assertThat(t.tick()).isEqualTo(10_000L);
        assertThat(t.precision()).isEqualTo(1L);
        assertThat(s.maxErrorMicros()).isNotNegative();
        assertThat(s.isSynchronized()).isEqualTo(s.maxErrorMicros() < 16_000_000L);
        if (s.flags().contains(SyncStatus.StatusFlag.UNSYNC) && !s.isSynchronized()) {
            assertThat(s.state()).isEqualTo(SyncStatus.ClockState.ERROR);
        }
    }

    @Test
    void shouldDecodeEveryField() {
        // status: PLL | NANO; freq: 2 ppm << 16 -> 2000 ppb; offset in ns because of STA_NANO.
        SyncStatus s = SyncStatus.of(new TimexReading(1, 0x0001 | 0x2000, -1234, 2L << 16, 15_999_999, 42,
                2, 1, 500L << 16, 10_000, 37));
        assertThat(s.state()).isEqualTo(SyncStatus.ClockState.INSERT_LEAP);
        assertThat(s.flags()).containsExactly(SyncStatus.StatusFlag.PLL, SyncStatus.StatusFlag.NANO);
        assertThat(s.frequencyPpb()).isEqualTo(2000.0);
        assertThat(s.offsetNanos()).isEqualTo(-1234);
        assertThat(s.taiOffsetSeconds()).isEqualTo(37);
        assertThat(s.isSynchronized()).isTrue();
        SyncStatus micro = SyncStatus.of(new TimexReading(5, 0x0040, -1234, -(1L << 15), 16_000_000, 16_000_000,
                2, 1, 500L << 16, 10_000, 0));
        assertThat(micro.offsetNanos()).isEqualTo(-1_234_000);
        assertThat(micro.frequencyPpb()).isEqualTo(-500.0);
        assertThat(micro.state()).isEqualTo(SyncStatus.ClockState.ERROR);
        assertThat(micro.isSynchronized()).as("maxerror at 16 s is unsynchronised").isFalse();
    }

    @Test
    void aRefusedAdjtimexShouldBeUnavailableWithItsErrnoNotAnException() {
        // The syscall boundary answers as seccomp or systemd's ProtectClock= would.
        SyncStatus s = SyncStatus.read(clockId -> {
            throw new ErrnoException("clock_adjtime(" + clockId + ", modes=0)", Errno.EPERM);
        });
        assertThat(s.isAvailable()).isFalse();
        assertThat(s.isSynchronized()).isFalse();
        assertThat(s.errno()).isEqualTo(Errno.EPERM);
        assertThat(s.availability()).contains("EPERM").contains("ProtectClock");
        assertThat(s.toString()).contains("unavailable");
        assertThatThrownBy(s::maxErrorMicros).isInstanceOf(IllegalStateException.class).hasMessageContaining("EPERM");
    }
}
