package org.timekeeping4j.cli.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.timekeeping4j.ClockId;

/** What every registered, available path promises; a new path (fast, ticks, snapshot) is checked by being listed. */
class ClockPathContractTest {

    static Stream<ClockPath> paths() {
        // Plus a path registered the one-line way, as fast / ticks / snapshot will be.
        ClockPath oneLiner = new SimplePath("one-liner", "KernelClocks.nanos for MONOTONIC and BOOTTIME",
                c -> c == ClockId.MONOTONIC || c == ClockId.BOOTTIME, c -> () -> org.timekeeping4j.KernelClocks.nanos(c),
                c -> 0L, c -> "KernelClocks.nanos");
        return Stream.concat(ClockPaths.available().stream(), Stream.of(oneLiner));
    }

    @ParameterizedTest
    @MethodSource("paths")
    void shouldServeAtLeastOneClockAndNameItsCall(ClockPath path) {
        assertThat(path.clocks()).isNotEmpty();
        assertThat(path.name()).matches("[a-z][a-z-]*");
        assertThat(path.description()).isNotBlank();
        for (ClockId c : path.clocks()) {
            assertThat(path.callName(c)).isNotBlank();
            assertThat(path.agreementBoundNanos(c)).isNotNegative();
        }
    }

    @ParameterizedTest
    @MethodSource("paths")
    void shouldNeverGoBackwardsWithinAThread(ClockPath path) {
        for (ClockId c : path.clocks()) {
            PathReader r = path.reader(c);
            long last = r.readNanos();
            for (int i = 0; i < 1_000; i++) {
                long now = r.readNanos();
                assertThat(now).as("%s %s read %d", path.name(), c, i).isGreaterThanOrEqualTo(last);
                last = now;
            }
        }
    }

    @ParameterizedTest
    @MethodSource("paths")
    void shouldRefuseClocksItDoesNotServeNamingThem(ClockPath path) {
        for (ClockId c : ClockId.values()) {
            if (!path.serves(c)) {
                assertThatThrownBy(() -> path.reader(c).readNanos()).isInstanceOf(UnsupportedOperationException.class)
                        .hasMessageContaining(c.kernelName());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("paths")
    void shouldReadWithoutAllocatingOnceWarm(ClockPath path) {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (ClockId c : path.clocks()) {
            if (path.callName(c).equals("Instant.now")) {
                continue; // the JDK's Instant is allocated unless C2's escape analysis removes it
            }
            PathReader r = path.reader(c);
            long sink = 0;
            for (int i = 0; i < 20_000; i++) { // warm up: thread-local buffers, call sites linked
                sink += r.readNanos();
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                sink += r.readNanos();
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            // A handful of bytes of noise is allowed (the MXBean call itself); one object per read would be >= 320 KB.
            assertThat(allocated).as("%s %s: bytes for 20,000 reads (sink %d)", path.name(), c, sink)
                    .isLessThan(2_000);
        }
    }
}
