package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The clock id of an open file descriptor, as include/linux/posix-timers.h encodes it. */
class DynamicClockIdTest {

    @Test
    void shouldEncodeFileDescriptorClocksLikeFdToClockid() {
        // FD_TO_CLOCKID(3) = ((~3) << 3) | 3 = -29
        assertThat(new DynamicClockId(3).id()).isEqualTo(-29);
        assertThat(new DynamicClockId(0).id()).isEqualTo(-5);
        for (int fd : new int[] {0, 1, 7, 1023, 1 << 20}) {
            assertThat(DynamicClockId.ofClockId(new DynamicClockId(fd).id()).fd()).isEqualTo(fd);
        }
        assertThatThrownBy(() -> new DynamicClockId(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DynamicClockId.ofClockId(-6)) // a process CPU clock, not an fd
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-6");
    }
}
