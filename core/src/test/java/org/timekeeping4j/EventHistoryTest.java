package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.testing.BracketedEvents;

/**
 * Old events convert with the kernel's parameter set that served them (the parameter history): every event said
 * exact lies inside the two clock_gettime reads around its record, every flagged one within its bound, and ticks
 * older than the kernel's last updates come out exact (without the history they are all extrapolated).
 */
class EventHistoryTest {

    @Test
    void eventsOlderThanTheKernelsUpdatesShouldConvertExactlyOrSayBy() throws Exception {
        org.timekeeping4j.vdso.KernelVdsoTest.assumeExactModePossible(); // the history serves where exact mode does
        BracketedEvents events = new BracketedEvents(new EventRecorder(1 << 16)); // the recorder asks for the history
        assertThat(Clocks.awaitExactMode(Duration.ofSeconds(10))).as(Clocks.diagnostics().why()).isTrue();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            events.record();
            if (i % 100 == 0) {
                Thread.sleep(1); // over many of the kernel's updates (every tick)
            }
        }
        long mono = KernelClocks.nanos(ClockId.MONOTONIC);
        while (KernelClocks.nanos(ClockId.MONOTONIC) - mono < 50_000_000L) {
            Thread.sleep(10); // every event now lies before the kernel's current update window
        }
        assertThat(Clocks.diagnostics().history()).startsWith("kept for 60 s");
        BracketedEvents.Judged j = events.judge(0, n);
        // Flags come only where the history missed an update or the kernel was publishing: rare, not the rule.
        assertThat(j.exact()).as("exact of %d (%d flagged)", n, j.flagged()).isGreaterThan(n / 2);
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
