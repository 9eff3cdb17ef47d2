package org.timekeeping4j.timekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.simulation.counter.SimulatedCounter;

/** Steps, leap seconds, suspend, slew, user clocks and history over a 1 GHz counter (1 cycle = 1 ns exactly). */
class TimekeeperAdjustmentTest {

    private static final long NS = 1_000_000_000L;
    /** 2016-12-31T00:00:00Z; the leap second of that day ends at MIDNIGHT. */
    private static final long MIDNIGHT = 1_483_228_800L * NS;

    private final SimulatedCounter counter = SimulatedCounter.builder().frequencyHz(NS).startCycles(-5 * NS).build();
    private final NtpAdjuster ntp = new NtpAdjuster();

    private Timekeeper timekeeper(long realtime) {
        return Timekeeper.builder(counter).adjustment(ntp).realtimeNanos(realtime).monotonicNanos(100 * NS)
                .taiOffsetSeconds(36).build();
    }

    @Test
    void settingTheBootOffsetShouldMoveBoottimeOnly() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        counter.setNanos(NS);
        long mono = tk.monotonicNanos();
        long real = tk.realtimeNanos();
        int seq = tk.clockWasSetSeq();
        tk.setBoottimeOffsetNanos(12_345);
        assertThat(tk.boottimeOffsetNanos()).isEqualTo(12_345);
        assertThat(tk.boottimeNanos()).isEqualTo(mono + 12_345);
        assertThat(tk.monotonicNanos()).isEqualTo(mono);
        assertThat(tk.realtimeNanos()).isEqualTo(real);
        assertThat(tk.clockWasSetSeq()).isEqualTo(seq);
        // Negative too: a time namespace's offsets can put BOOTTIME below MONOTONIC.
        tk.setBoottimeOffsetNanos(-500 * NS);
        assertThat(tk.boottimeNanos()).isEqualTo(mono - 500 * NS);
        assertThat(tk.monotonicNanos()).isEqualTo(mono);
    }

    @Test
    void shouldRepeatASecondOfRealtimeWhenALeapSecondIsInsertedWhileTaiRunsOn() {
        Timekeeper tk = timekeeper(MIDNIGHT - 5 * NS);
        ntp.insertLeapSecond();
        tk.update();
        int seq = tk.clockWasSetSeq();
        long tai0 = tk.taiNanos();
        counter.setNanos(5 * NS - 1); // 23:59:59.999999999
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - 1);
        assertThat(tk.taiOffsetSeconds()).isEqualTo(36);
        counter.setNanos(5 * NS); // midnight: REALTIME is 23:59:59 again
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - NS);
        assertThat(tk.taiOffsetSeconds()).isEqualTo(37);
        assertThat(tk.taiNanos()).isEqualTo(tai0 + 5 * NS);
        counter.setNanos(5 * NS + NS / 2);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - NS / 2);
        tk.update(); // folds the leap into the offsets: no visible change
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - NS / 2);
        assertThat(tk.realtimeCoarseNanos()).isEqualTo(MIDNIGHT - NS / 2);
        assertThat(tk.clockWasSetSeq()).isEqualTo(seq + 1);
        assertThat(ntp.leapSecondsApplied()).isEqualTo(1);
        counter.setNanos(6 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT);
        assertThat(tk.taiNanos()).isEqualTo(tai0 + 6 * NS);
        assertThat(tk.monotonicNanos()).isEqualTo(106 * NS);
        // Not again the next midnight.
        tk.update();
        counter.setNanos(6 * NS + 86_400 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + 86_400 * NS);
    }

    @Test
    void shouldSkipASecondOfRealtimeWhenALeapSecondIsDeleted() {
        Timekeeper tk = timekeeper(MIDNIGHT - 5 * NS);
        ntp.deleteLeapSecond();
        tk.update();
        long tai0 = tk.taiNanos();
        counter.setNanos(4 * NS - 1); // 23:59:58.999999999
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - NS - 1);
        counter.setNanos(4 * NS); // 23:59:59 does not exist
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT);
        assertThat(tk.taiOffsetSeconds()).isEqualTo(35);
        assertThat(tk.taiNanos()).isEqualTo(tai0 + 4 * NS);
        tk.update();
        counter.setNanos(5 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + NS);
        assertThat(tk.taiOffsetSeconds()).isEqualTo(35);
    }

    @Test
    void shouldStepRealtimeAndTaiButNotMonotonicBoottimeOrRaw() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        counter.advanceNanos(NS);
        long mono = tk.monotonicNanos(), raw = tk.monotonicRawNanos(), boot = tk.boottimeNanos();
        int seq = tk.clockWasSetSeq();
        tk.step(5 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + 6 * NS);
        assertThat(tk.taiNanos()).isEqualTo(MIDNIGHT + 6 * NS + 36 * NS);
        tk.step(-7 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT - NS);
        assertThat(tk.realtimeCoarseNanos()).isEqualTo(MIDNIGHT - NS);
        tk.setRealtime(MIDNIGHT + 3 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + 3 * NS);
        assertThat(tk.taiNanos() - tk.realtimeNanos()).isEqualTo(36 * NS);
        assertThat(tk.clockWasSetSeq()).isEqualTo(seq + 3);
        assertThat(tk.monotonicNanos()).isEqualTo(mono);
        assertThat(tk.monotonicRawNanos()).isEqualTo(raw);
        assertThat(tk.boottimeNanos()).isEqualTo(boot);
    }

    @Test
    void shouldAddSuspendedTimeToBoottimeAndRealtimeButNotToMonotonic() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        counter.advanceNanos(NS);
        tk.suspend();
        long mono = tk.monotonicNanos();
        counter.advanceNanos(10 * NS);
        assertThat(tk.monotonicNanos()).isEqualTo(mono); // time stands still while suspended
        assertThat(tk.boottimeNanos()).isEqualTo(mono);
        tk.update();
        assertThat(tk.monotonicRawNanos()).isEqualTo(mono);
        tk.resume(); // 10 s measured on the counter
        assertThat(tk.monotonicNanos()).isEqualTo(mono);
        assertThat(tk.monotonicRawNanos()).isEqualTo(mono);
        assertThat(tk.boottimeNanos()).isEqualTo(mono + 10 * NS);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + 11 * NS);
        counter.advanceNanos(NS);
        assertThat(tk.monotonicNanos()).isEqualTo(mono + NS);
        tk.suspend();
        tk.resume(3 * NS); // slept time from an RTC
        assertThat(tk.boottimeNanos() - tk.monotonicNanos()).isEqualTo(13 * NS);
        assertThatThrownBy(tk::resume).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldSlewAtMost500PpmUntilTheOffsetIsCorrected() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        ntp.slew(1_000_000); // 1 ms ahead: 2 s at 500 ppm
        tk.update();
        long prevGap = 0;
        for (int i = 0; i < 400; i++) { // 4 s in 10 ms updates
            counter.advanceNanos(10_000_000);
            long gap = tk.monotonicNanos() - tk.monotonicRawNanos();
            assertThat(gap - prevGap).isBetween(0L, 5_000L + 1); // 500 ppm of 10 ms
            prevGap = gap;
            tk.update();
        }
        assertThat(prevGap).isBetween(1_000_000L - 2, 1_000_000L + 2);
        assertThat(ntp.remainingSlewNanos()).isZero();
    }

    @Test
    void shouldAcceptTheFrequencyInAdjtimexScale() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        ntp.setFrequencyScaledPpm(-10L << 16); // -10 ppm
        assertThat(ntp.frequencyPpb()).isEqualTo(-10_000);
        tk.update();
        counter.advanceNanos(NS);
        assertThat(tk.monotonicNanos() - 100 * NS).isBetween(NS - 10_000 - 1, NS - 10_000 + 1);
        assertThat(tk.monotonicRawNanos() - 100 * NS).isEqualTo(NS);
    }

    @Test
    void shouldRunUserClocksOnTheirOwnFrequencyAndOffset() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        UserClock aux = tk.createUserClock(ClockId.AUX_0, 1_000 * NS);
        aux.setFrequencyPpb(100_000); // +100 ppm
        tk.update();
        counter.advanceNanos(NS);
        assertThat(tk.nanos(ClockId.AUX_0)).isBetween(1_001 * NS + 100_000 - 1, 1_001 * NS + 100_000 + 1);
        assertThat(tk.monotonicNanos()).isEqualTo(101 * NS);
        int seq = tk.clockWasSetSeq();
        aux.step(-500 * NS);
        assertThat(aux.nanos()).isBetween(501 * NS + 100_000 - 1, 501 * NS + 100_000 + 1);
        assertThat(tk.clockWasSetSeq()).isEqualTo(seq);
        assertThat(tk.realtimeNanos()).isEqualTo(MIDNIGHT + NS);
        assertThatThrownBy(() -> tk.nanos(ClockId.AUX_1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> tk.createUserClock(ClockId.AUX_0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldConvertAUserClocksEarlierCounterValuesAsDocumented() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        UserClock aux = tk.createUserClock(ClockId.AUX_0, 1_000 * NS);
        aux.setFrequencyPpb(100_000);
        tk.update();
        counter.advanceNanos(NS);
        long c = counter.read();
        long then = tk.nanos(ClockId.AUX_0);
        counter.advanceNanos(NS);
        aux.step(-500 * NS); // a later step does not change what the earlier read returned
        assertThat(tk.convert(c, ClockId.AUX_0)).isEqualTo(then).isEqualTo(aux.convert(c));
        ConvertedNanos into = new ConvertedNanos();
        assertThat(tk.convert(c, ClockId.AUX_0, into)).isTrue();
        assertThat(into.nanos()).isEqualTo(then);
        assertThatThrownBy(() -> tk.convert(c, ClockId.AUX_1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("createUserClock");
        assertThatThrownBy(() -> tk.convert(c, ClockId.THREAD_CPUTIME_ID, into))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldConvertEarlierCounterValuesToWhatReadsReturnedThen() {
        Timekeeper tk = Timekeeper.builder(counter).adjustment(ntp).realtimeNanos(MIDNIGHT).historySize(16).build();
        record Reading(long counter, long mono, long real, long raw) {
        }
        List<Reading> readings = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            counter.advanceNanos(7_000_001L * (i % 5 + 1));
            long c = counter.read();
            readings.add(new Reading(c, tk.monotonicNanos(), tk.realtimeNanos(), tk.monotonicRawNanos()));
            // A counter value equal to an update's pivot converts with the state that update published
            // (for a step: the stepped one); move on a cycle so that the reading predates the update.
            counter.advanceNanos(1);
            if (i % 3 == 0) {
                ntp.setFrequencyPpb((i % 2 == 0 ? 1 : -1) * 400_000L);
            }
            if (i % 7 == 0) {
                tk.step(i % 2 == 0 ? NS : -NS);
            }
            tk.update();
        }
        ConvertedNanos conv = new ConvertedNanos();
        for (int i = readings.size() - 12; i < readings.size(); i++) { // 16 states: 12 updates and their steps
            Reading r = readings.get(i);
            assertThat(tk.convert(r.counter(), ClockId.MONOTONIC)).isEqualTo(r.mono());
            assertThat(tk.convert(r.counter(), ClockId.MONOTONIC_RAW)).isEqualTo(r.raw());
            assertThat(tk.convert(r.counter(), ClockId.REALTIME, conv)).isTrue();
            assertThat(conv.nanos()).isEqualTo(r.real());
        }
        Reading old = readings.get(2);
        assertThat(tk.convert(old.counter(), ClockId.MONOTONIC_RAW, conv)).isFalse(); // older than the history
        assertThat(conv.nanos()).isEqualTo(old.raw()); // the raw line never changes slope
    }

    @Test
    void clocksWithoutAProjectionShouldBeRefusedNotReadFromAnotherRecord() {
        Timekeeper tk = timekeeper(MIDNIGHT);
        for (ClockId c : new ClockId[] {ClockId.PROCESS_CPUTIME_ID, ClockId.THREAD_CPUTIME_ID, ClockId.of(16)}) {
            assertThatThrownBy(() -> tk.nanos(c)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> tk.convert(0, c)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> tk.removeUserClock(ClockId.MONOTONIC))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an AUX clock id");
    }
}
