package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.LibC;

/**
 * The shared clock helper refuses every write without the opt-in, before any system call. The writes tried
 * here name CLOCK_MONOTONIC, which the kernel never lets anyone set or adjust (EINVAL), so even a broken guard
 * changes nothing: it only fails with the kernel's error in place of the refusal.
 */
class KernelClockTest {

    private static final int CLOCK_MONOTONIC = 1;

    @Test
    void writesShouldBeRefusedWithoutTheOptInAndReadsAllowed() {
        String before = System.getProperty(HostSteering.PROPERTY);
        System.clearProperty(HostSteering.PROPERTY);
        try {
            assertThatThrownBy(() -> KernelClock.settime(CLOCK_MONOTONIC, 0)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("-Dtimekeeping4j.test.steerHost=true is not set");
            assertThatThrownBy(() -> KernelClock.setFrequency(CLOCK_MONOTONIC, 0))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not set");
            assertThatThrownBy(() -> KernelClock.sysfs("/nonexistent/tk4j", "1"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not set");
            assertThat(KernelClock.state()).as("a read (modes 0) needs no opt-in")
                    .isBetween(KernelClock.TIME_OK, KernelClock.TIME_ERROR);
        } finally {
            if (before != null) {
                System.setProperty(HostSteering.PROPERTY, before);
            }
        }
    }

    @Test
    void aRefusalByTheKernelShouldNameErrno() {
        String before = System.getProperty(HostSteering.PROPERTY);
        System.setProperty(HostSteering.PROPERTY, "true");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timex = arena.allocate(LibC.Timex.SIZE, 8);
            timex.set(ValueLayout.JAVA_INT, LibC.Timex.MODES, KernelClock.ADJ_FREQUENCY);
            assertThatThrownBy(() -> KernelClock.adjtime(CLOCK_MONOTONIC, timex))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("clock_adjtime(1, modes 0x2)")
                    .hasMessageContaining("failed: ");
            assertThatThrownBy(() -> KernelClock.settime(CLOCK_MONOTONIC, 0))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("clock_settime(1) failed: ");
        } finally {
            if (before == null) {
                System.clearProperty(HostSteering.PROPERTY);
            } else {
                System.setProperty(HostSteering.PROPERTY, before);
            }
        }
    }
}
