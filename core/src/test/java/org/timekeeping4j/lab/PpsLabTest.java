package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.PpsEvent;
import org.timekeeping4j.device.PpsSource;
import org.timekeeping4j.testing.KernelClock;

/**
 * PpsSource against the kernel's pps_ktimer (/dev/pps0 "ktimer": an assert event every second from a kernel timer,
 * time-stamped with the guest's CLOCK_REALTIME).
 */
@Tag("lab")
class PpsLabTest {

    static final Path PPS = Path.of("/dev/pps0");

    @BeforeAll
    static void guest() {
        KernelClock.assumeLabGuest();
        assertThat(KernelClock.read("/sys/class/pps/pps0/name")).as("pps0 is the ktimer source").isEqualTo("ktimer");
    }

    @Test
    void capabilitiesShouldBeTheKtimersAssertOnlyCanWait() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS)) {
            List<String> caps = pps.capabilityNames();
            assertThat(pps.canCaptureAssert()).as("%s", caps).isTrue();
            assertThat(pps.canCaptureClear()).as("%s", caps).isFalse();
            assertThat(pps.canWait()).as("%s", caps).isTrue();
            // pps_ktimer's own: PPS_CAPTUREASSERT | PPS_OFFSETASSERT | PPS_ECHOASSERT | PPS_CANWAIT | PPS_TSFMT_TSPEC
            assertThat(pps.capabilities()).as("%s", caps).isEqualTo(0x1151);
            assertThat(caps).containsExactly("CAPTUREASSERT", "OFFSETASSERT", "ECHOASSERT", "CANWAIT", "TSFMT_TSPEC");
        }
    }

    @Test
    void successiveAssertEventsShouldCountUpOneASecondEachStampedInsideTheRealtimeBracketOfItsFetch()
            throws Exception {
        try (PpsSource pps = PpsSource.open(PPS)) {
            List<PpsEvent> events = new ArrayList<>();
            List<long[]> brackets = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long before = KernelClock.gettime(0);
                Optional<PpsEvent> e = pps.fetch(Duration.ofSeconds(3));
                long after = KernelClock.gettime(0);
                assertThat(e).as("event %d within 3 s", i).isPresent();
                events.add(e.get());
                brackets.add(new long[] {before, after});
            }
            for (int i = 0; i < events.size(); i++) {
                PpsEvent e = events.get(i);
                // A fetch with a timeout waits for the next edge, so the edge falls between the two REALTIME reads.
                assertThat(e.assertEpochNanos()).as("event %s in its fetch's REALTIME bracket", e)
                        .isBetween(brackets.get(i)[0], brackets.get(i)[1]);
                assertThat(e.clearSequence()).as("ktimer captures no clear edge").isZero();
                if (i > 0) {
                    PpsEvent p = events.get(i - 1);
                    assertThat(e.assertSequence()).as("sequence after %s", p).isEqualTo(p.assertSequence() + 1);
                    assertThat(e.assertEpochNanos() - p.assertEpochNanos()).as("one second after %s", p)
                            .isBetween(900_000_000L, 1_100_000_000L);
                }
            }
        }
    }

    @Test
    void aFetchShouldTimeOutEmptyAndAZeroTimeoutShouldNotReturnTheSameEventTwice() throws Exception {
        try (PpsSource pps = PpsSource.open(PPS)) {
            PpsEvent last = pps.fetch(Duration.ofSeconds(3)).orElseThrow();
            // Right after an edge the next one is about a second away: a 200 ms wait must time out.
            long t0 = System.nanoTime();
            Optional<PpsEvent> none = pps.fetch(Duration.ofMillis(200));
            long waited = System.nanoTime() - t0;
            assertThat(none).as("no edge within 200 ms of %s", last).isEmpty();
            assertThat(waited).as("the kernel waited the timeout (ETIMEDOUT), ns").isGreaterThanOrEqualTo(190_000_000L)
                    .isLessThan(900_000_000L);
            // Polling: the kernel hands back the latest event at once, which was already returned.
            assertThat(pps.fetch(Duration.ZERO)).as("poll right after %s", last).isEmpty();
            PpsEvent next = pps.fetchWithoutTimeout().orElseThrow();
            assertThat(next.assertSequence()).isEqualTo(last.assertSequence() + 1);
        }
    }

    @Test
    void closeShouldReleaseTheDescriptorAndRefuseLaterFetches() throws Exception {
        PpsSource pps = PpsSource.open(PPS);
        assertThat(openDescriptorsOf(PPS)).as("descriptors on %s while open", PPS).isEqualTo(1);
        pps.close();
        assertThat(openDescriptorsOf(PPS)).as("descriptors on %s after close", PPS).isZero();
        assertThatThrownBy(() -> pps.fetch(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        pps.close(); // a second close does nothing
    }

    @Test
    void aFileThatIsNoPpsSourceShouldBeRefusedInOneLine() {
        assertThatThrownBy(() -> PpsSource.open(Path.of("/dev/null"))).isInstanceOf(DeviceException.class)
                .hasMessageStartingWith("/dev/null: ").hasMessageContaining("ENOTTY").hasMessageNotContaining("\n");
    }

    static long openDescriptorsOf(Path device) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(device);
                } catch (IOException e) {
                    return false; // gone meanwhile (the listing's own descriptor)
                }
            }).count();
        }
    }
}
