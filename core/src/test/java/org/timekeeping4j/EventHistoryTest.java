package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Old events convert with the kernel's parameter set that served them (the parameter history): every event said
 * exact lies inside the two clock_gettime reads around its record, every flagged one within its bound, and ticks
 * older than the kernel's last updates come out exact (without the history they are all extrapolated).
 */
class EventHistoryTest {

    private static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI,
        ClockId.MONOTONIC_RAW};

    @Test
    void eventsOlderThanTheKernelsUpdatesShouldConvertExactlyOrSayBy() throws Exception {
        org.timekeeping4j.vdso.KernelVdsoTest.assumeExactModePossible(); // the history serves where exact mode does
        EventRecorder recorder = new EventRecorder(1 << 16); // asks for the history
        assertThat(Clocks.awaitExactMode(Duration.ofSeconds(10))).as(Clocks.diagnostics().why()).isTrue();
        int n = 20_000;
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] ticks = new long[n];
        for (int i = 0; i < n; i++) {
            ClockId c = CLOCKS[i % CLOCKS.length];
            lo[i] = KernelClocks.nanos(c);
            ticks[i] = Clocks.ticks();
            hi[i] = KernelClocks.nanos(c);
            recorder.record(ticks[i], i);
            if (i % 100 == 0) {
                Thread.sleep(1); // over many of the kernel's updates (every tick)
            }
        }
        long mono = KernelClocks.nanos(ClockId.MONOTONIC);
        while (KernelClocks.nanos(ClockId.MONOTONIC) - mono < 50_000_000L) {
            Thread.sleep(10); // every event now lies before the kernel's current update window
        }
        assertThat(Clocks.diagnostics().history()).startsWith("kept for 60 s");

        AtomicLong exact = new AtomicLong();
        AtomicLong flagged = new AtomicLong();
        Snapshot s = new Snapshot();
        for (int k = 0; k < CLOCKS.length; k++) {
            ClockId clock = CLOCKS[k];
            int kk = k;
            recorder.export(clock, (nanos, payload, extrapolated) -> {
                int i = (int) payload;
                if (i % CLOCKS.length != kk) {
                    return;
                }
                Clocks.snapshotAt(ticks[i], clock, s);
                assertThat(s.nanos()).isEqualTo(nanos);
                assertThat(s.isExtrapolated()).isEqualTo(extrapolated);
                if (!extrapolated) {
                    exact.incrementAndGet();
                    assertThat(nanos).as("%s event %d, exact", clock, i).isBetween(lo[i], hi[i]);
                    assertThat(s.errorBoundNanos()).isZero();
                } else {
                    flagged.incrementAndGet();
                    long off = nanos < lo[i] ? lo[i] - nanos : Math.max(0, nanos - hi[i]);
                    assertThat(off).as("%s event %d, flagged", clock, i).isLessThanOrEqualTo(s.errorBoundNanos());
                }
            });
        }
        assertThat(exact.get() + flagged.get()).isEqualTo(n);
        // Flags come only where the history missed an update or the kernel was publishing: rare, not the rule.
        assertThat(exact.get()).as("exact of %d (%d flagged)", n, flagged.get()).isGreaterThan(n / 2);
    }

    @Test
    void aBadHistoryLengthShouldWarnAndKeepTheDefault() {
        var c = org.timekeeping4j.config.Configuration.read(java.util.Map.of("timekeeping4j.history", "1h"));
        assertThat(c.historySeconds()).isEqualTo(60);
        assertThat(c.errors()).containsExactly("timekeeping4j.history=1h is no length: give whole seconds, 0 (none"
                + " kept) to 3600");
        assertThat(org.timekeeping4j.config.Configuration.read(java.util.Map.of("timekeeping4j.history", " 0 "))
                .historySeconds()).isZero();
    }
}
