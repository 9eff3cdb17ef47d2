package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.Errno;

/** PtpClock against the fake kernel (byte-exact structs). */
class PtpClockTest {

    private static final Path PTP = Path.of("/dev/ptp0");
    private final FakeKernel kernel = new FakeKernel().with("/dev/ptp0", FakeKernel.Kind.PTP)
            .with("/dev/pps0", FakeKernel.Kind.PPS).with("/etc/hosts", FakeKernel.Kind.OTHER);

    @Test
    void shouldReadCapabilitiesAndTime() throws Exception {
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThat(phc.capabilities()).isEqualTo(
                    new PtpCapabilities(100_000_000, 0, 2, 1, true, 4, true, true, 5_000));
            assertThat(DynamicClockId.ofClockId(phc.clockId()).fd()).isEqualTo(40);
            long before = kernel.now;
            assertThat(phc.nanos()).isEqualTo(before + kernel.step + kernel.phcAhead);
        }
        assertThat(kernel.openFds).isEmpty();
    }

    @Test
    void shouldPreferPreciseCrossTimestamps() throws Exception {
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset();
            assertThat(o.method()).isEqualTo(PtpClock.Method.PRECISE);
            assertThat(o.offsetNanos()).isEqualTo(-kernel.phcAhead);
            assertThat(o.delayNanos()).isZero();
            PtpOffset raw = phc.offset(ClockId.MONOTONIC_RAW, 5);
            assertThat(raw.method()).isEqualTo(PtpClock.Method.PRECISE);
            assertThat(raw.offsetNanos()).isEqualTo(-kernel.phcAhead - 1_000_000);
        }
    }

    @Test
    void shouldKeepTheShortestDelaySampleOfExtended() throws Exception {
        kernel.refused.add(FakeKernel.PRECISE);
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset(ClockId.REALTIME, 5);
            assertThat(o.method()).isEqualTo(PtpClock.Method.EXTENDED);
            assertThat(o.delayNanos()).isEqualTo(120);
            assertThat(o.offsetNanos()).isEqualTo(-kernel.phcAhead);
            assertThat(o.samples()).isEqualTo(5);
            assertThat(phc.refusedMethods(ClockId.REALTIME)).containsExactly(PtpClock.Method.PRECISE);
            phc.offset();
            assertThat(kernel.calls(FakeKernel.PRECISE)).as("refused method is skipped later").isEqualTo(1);
        }
    }

    @Test
    void shouldUseExtendedWithItsClockIdForMonotonic() throws Exception {
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset(ClockId.MONOTONIC, 3);
            assertThat(o.method()).isEqualTo(PtpClock.Method.EXTENDED);
            assertThat(kernel.calls(FakeKernel.PRECISE)).as("PRECISE has no MONOTONIC stamp").isZero();
        }
    }

    @Test
    void shouldFallBackToTripletsWhenAnOldKernelRejectsTheClockId() throws Exception {
        kernel.extendedClockid = false;
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset(ClockId.MONOTONIC_RAW, 4);
            // PRECISE still serves MONOTONIC_RAW; refuse it to reach EXTENDED.
            assertThat(o.method()).isEqualTo(PtpClock.Method.PRECISE);
        }
        kernel.refused.add(FakeKernel.PRECISE);
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset(ClockId.MONOTONIC_RAW, 4);
            assertThat(o.method()).isEqualTo(PtpClock.Method.CLOCK_GETTIME);
            assertThat(o.offsetNanos()).isEqualTo(-kernel.phcAhead);
            assertThat(o.delayNanos()).isEqualTo(2 * kernel.step);
            assertThat(phc.refusedMethods(ClockId.MONOTONIC_RAW))
                    .contains(PtpClock.Method.PRECISE, PtpClock.Method.EXTENDED);
            assertThat(phc.refusedMethods(ClockId.REALTIME)).doesNotContain(PtpClock.Method.EXTENDED);
            int extendedCalls = kernel.calls(FakeKernel.EXTENDED);
            phc.offset(ClockId.MONOTONIC_RAW, 4);
            assertThat(kernel.calls(FakeKernel.EXTENDED)).isEqualTo(extendedCalls);
            assertThat(phc.offset(ClockId.REALTIME, 4).method()).isEqualTo(PtpClock.Method.EXTENDED);
        }
    }

    @Test
    void shouldFallBackToBasicThenTriplets() throws Exception {
        kernel.refused.add(FakeKernel.PRECISE);
        kernel.refused.add(FakeKernel.EXTENDED);
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            PtpOffset o = phc.offset(ClockId.REALTIME, 5);
            assertThat(o.method()).isEqualTo(PtpClock.Method.BASIC);
            assertThat(o.delayNanos()).isEqualTo(120);
            assertThat(o.offsetNanos()).isEqualTo(-kernel.phcAhead);
        }
        kernel.refused.add(FakeKernel.SYS_OFFSET);
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThat(phc.offset().method()).isEqualTo(PtpClock.Method.CLOCK_GETTIME);
            assertThat(phc.refusedMethods(ClockId.REALTIME)).containsExactly(
                    PtpClock.Method.PRECISE, PtpClock.Method.EXTENDED, PtpClock.Method.BASIC);
        }
    }

    @Test
    void shouldRetryOnEbusy() throws Exception {
        kernel.failNext.put(FakeKernel.PRECISE, new ArrayDeque<>(List.of(Errno.EBUSY, Errno.EBUSY)));
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThat(phc.offset().method()).isEqualTo(PtpClock.Method.PRECISE);
            assertThat(kernel.calls(FakeKernel.PRECISE)).isEqualTo(3);
        }
        kernel.failNext.put(FakeKernel.PRECISE, new ArrayDeque<>(List.of(Errno.EBUSY, Errno.EBUSY, Errno.EBUSY)));
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThat(phc.offset().method()).as("busy three times: next method, not remembered")
                    .isEqualTo(PtpClock.Method.EXTENDED);
            assertThat(phc.refusedMethods(ClockId.REALTIME)).isEmpty();
        }
    }

    @Test
    void shouldReportOtherIoctlErrorsWithPathAndErrno() throws Exception {
        kernel.failNext.put(FakeKernel.PRECISE, new ArrayDeque<>(List.of(Errno.ENODEV)));
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThatThrownBy(phc::offset).isInstanceOf(IllegalStateException.class)
                    .hasMessage("/dev/ptp0: PTP_SYS_OFFSET_PRECISE failed: ENODEV (No such device)");
        }
    }

    @Test
    void shouldRejectBadSampleCounts() throws Exception {
        try (PtpClock phc = PtpClock.open(PTP, false, kernel)) {
            assertThatThrownBy(() -> phc.offset(ClockId.REALTIME, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> phc.offset(ClockId.REALTIME, 26)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void missingDeviceIsEnoent() {
        assertThatThrownBy(() -> PtpClock.open(Path.of("/dev/ptp9"), false, kernel))
                .isInstanceOf(DeviceException.class)
                .hasMessage("/dev/ptp9: open failed: ENOENT (No such file or directory)")
                .extracting(e -> ((DeviceException) e).errno()).isEqualTo(Errno.ENOENT);
    }

    @Test
    void permissionDeniedIsEacces() {
        kernel.openErrno.put("/dev/ptp0", Errno.EACCES);
        assertThatThrownBy(() -> PtpClock.open(PTP, true, kernel))
                .isInstanceOf(DeviceException.class)
                .hasMessage("/dev/ptp0: open failed: EACCES (Permission denied)");
    }

    @Test
    void aFileThatIsNoPtpClockIsEnottyAndIsClosed() {
        assertThatThrownBy(() -> PtpClock.open(Path.of("/etc/hosts"), false, kernel))
                .isInstanceOf(DeviceException.class)
                .hasMessageContaining("/etc/hosts: not a PTP hardware clock").hasMessageContaining("ENOTTY");
        assertThatThrownBy(() -> PtpClock.open(Path.of("/dev/pps0"), false, kernel))
                .hasMessageContaining("ENOTTY");
        assertThat(kernel.openFds).as("no descriptor leaked").isEmpty();
    }

    @Test
    void closedClockRefusesUseAndClosesOnce() throws Exception {
        PtpClock phc = PtpClock.open(PTP, false, kernel);
        phc.close();
        phc.close();
        assertThat(kernel.openFds).isEmpty();
        assertThatThrownBy(phc::nanos).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
