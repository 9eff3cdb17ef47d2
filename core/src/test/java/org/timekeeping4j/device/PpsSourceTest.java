package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.Errno;

/** PpsSource against the fake kernel (byte-exact pps_fdata). */
class PpsSourceTest {

    private static final Path PPS = Path.of("/dev/pps0");
    private final FakeKernel kernel = new FakeKernel().with("/dev/pps0", FakeKernel.Kind.PPS)
            .with("/dev/ptp0", FakeKernel.Kind.PTP);

    @Test
    void shouldReadCapabilities() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThat(pps.capabilities()).isEqualTo(0x1133);
            assertThat(pps.capabilityNames()).containsExactly("CAPTUREASSERT", "CAPTURECLEAR", "OFFSETASSERT",
                    "OFFSETCLEAR", "CANWAIT", "TSFMT_TSPEC");
            assertThat(pps.canCaptureAssert()).isTrue();
            assertThat(pps.canCaptureClear()).isTrue();
            assertThat(pps.canWait()).isTrue();
        }
        assertThat(kernel.openFds).isEmpty();
    }

    @Test
    void shouldReturnEventsWithSequencesAndTimestamps() throws Exception {
        kernel.ppsScript.add(new long[] {7, 1_700_000_001L, 123, 6, 1_700_000_000L, 500_000_000});
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            PpsEvent e = pps.fetch(Duration.ofMillis(1500)).orElseThrow();
            assertThat(kernel.seenTimeoutSec).isEqualTo(1);
            assertThat(kernel.seenTimeoutNsec).isEqualTo(500_000_000);
            assertThat(kernel.seenTimeoutFlags).isZero();
            assertThat(e.assertSequence()).isEqualTo(7);
            assertThat(e.assertEpochNanos()).isEqualTo(1_700_000_001_000_000_123L);
            assertThat(e.clearSequence()).isEqualTo(6);
            assertThat(e.clearNanos()).isEqualTo(500_000_000);
            assertThat(e.mode()).isEqualTo(3);
            assertThat(e.toString()).isEqualTo(
                    "assert 1700000001.000000123, sequence: 7 - clear  1700000000.500000000, sequence: 6");
        }
    }

    @Test
    void shouldDropDuplicatesWhenPolling() throws Exception {
        kernel.ppsScript.add(new long[] {1, 10, 0, 0, 0, 0});
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThat(pps.fetch(Duration.ZERO)).isPresent();
            // Zero timeout: the kernel returns the same last event again; it is a duplicate.
            assertThat(pps.fetch(Duration.ZERO)).isEmpty();
            assertThat(pps.fetch(Duration.ZERO)).isEmpty();
            kernel.ppsScript.add(new long[] {2, 11, 0, 0, 0, 0});
            assertThat(pps.fetch(Duration.ZERO).map(PpsEvent::assertSequence)).contains(2L);
        }
    }

    @Test
    void shouldIgnoreAnEmptyEventBeforeTheFirstEdge() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThat(pps.fetch(Duration.ZERO)).isEmpty();
        }
    }

    @Test
    void timeoutIsEmptyNotAnError() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThat(pps.fetch(Duration.ofSeconds(2))).isEmpty();
        }
    }

    @Test
    void waitingWithoutLimitSetsTimeInvalid() throws Exception {
        kernel.ppsScript.add(new long[] {3, 10, 0, 0, 0, 0});
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThat(pps.fetchWithoutTimeout()).isPresent();
            assertThat(kernel.seenTimeoutFlags).isEqualTo(1);
        }
    }

    @Test
    void eintrRestartsTheWait() throws Exception {
        kernel.ppsScript.add(Errno.EINTR);
        kernel.ppsScript.add(new long[] {4, 10, 0, 0, 0, 0});
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            Optional<PpsEvent> e = pps.fetch(Duration.ofSeconds(30));
            assertThat(e.map(PpsEvent::assertSequence)).contains(4L);
            assertThat(kernel.calls(FakeKernel.PPS_FETCH)).isEqualTo(2);
        }
    }

    @Test
    void eintrOnAnInterruptedThreadThrowsInterruptedIo() throws Exception {
        kernel.ppsScript.add(Errno.EINTR);
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> pps.fetch(Duration.ofSeconds(30)))
                        .isInstanceOf(InterruptedIOException.class).hasMessageContaining("/dev/pps0");
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    void otherFetchErrorsNamePathAndErrno() throws Exception {
        kernel.ppsScript.add(Errno.ENODEV);
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThatThrownBy(() -> pps.fetch(Duration.ZERO)).isInstanceOf(DeviceException.class)
                    .hasMessage("/dev/pps0: PPS_FETCH failed: ENODEV (No such device)");
        }
    }

    @Test
    void openErrorsAreOneLineAndLeakNothing() {
        assertThatThrownBy(() -> PpsSource.open(Path.of("/dev/pps7"), kernel))
                .hasMessage("/dev/pps7: open failed: ENOENT (No such file or directory)");
        kernel.openErrno.put("/dev/pps0", Errno.EACCES);
        assertThatThrownBy(() -> PpsSource.open(PPS, kernel))
                .hasMessage("/dev/pps0: open failed: EACCES (Permission denied)");
        assertThatThrownBy(() -> PpsSource.open(Path.of("/dev/ptp0"), kernel))
                .hasMessage("/dev/ptp0: not a PPS source (PPS_GETCAP: ENOTTY)");
        assertThat(kernel.openFds).isEmpty();
    }

    @Test
    void negativeTimeoutIsRejected() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS, kernel)) {
            assertThatThrownBy(() -> pps.fetch(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
