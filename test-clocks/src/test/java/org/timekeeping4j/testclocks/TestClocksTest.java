package org.timekeeping4j.testclocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockReader;

class TestClocksTest {

    @Test
    void aManualClockMovesOnlyWhenTheTestMovesIt() {
        ManualClock clock = ManualClock.startingAt(1_000);
        assertThat(clock.nanos()).isEqualTo(1_000);
        assertThat(clock.nanos()).isEqualTo(1_000);
        assertThat(clock.advance(Duration.ofMillis(3)).nanos()).isEqualTo(3_001_000);
        assertThat(clock.advanceNanos(7).nanos()).isEqualTo(3_001_007);
        assertThat(clock.set(5).nanos()).as("a step back").isEqualTo(5);
        assertThat(clock).hasToString("ManualClock[5 ns]");
        assertThat(ManualClock.startingAt(Instant.parse("2026-12-06T00:00:00.000000001Z")).nanos())
                .isEqualTo(1_796_515_200_000_000_001L);
    }

    @Test
    void badMovesSayWhatToDoInstead() {
        ManualClock clock = ManualClock.startingAt(0);
        assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("advance(PT-0.000000001S): time passes forward; a step back is set(nanos)");
        assertThatThrownBy(() -> clock.advanceNanos(-1)).hasMessageContaining("a step back is set(nanos)");
        assertThatThrownBy(() -> clock.set(Long.MAX_VALUE).advanceNanos(1)).isInstanceOf(ArithmeticException.class);
        assertThat(clock.nanos()).as("a refused move loses nothing").isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> ManualClock.startingAt(Instant.parse("2300-01-01T00:00:00Z")))
                .isInstanceOf(ArithmeticException.class);
    }

    @Test
    void advancesFromSeveralThreadsAllCount() throws InterruptedException {
        ManualClock clock = ManualClock.startingAt(0);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100_000; i++) {
                    clock.advanceNanos(1);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(clock.nanos()).isEqualTo(400_000);
    }

    @Test
    void fixedAndOffsetClocksReadWhatTheySay() {
        ClockReader fixed = TestClocks.fixed(42);
        assertThat(fixed.nanos()).isEqualTo(42);
        assertThat(fixed).hasToString("fixed[42 ns]");
        ManualClock base = ManualClock.startingAt(1_000);
        ClockReader ahead = TestClocks.offset(base, Duration.ofNanos(250));
        ClockReader behind = TestClocks.offset(base, Duration.ofNanos(-250));
        assertThat(ahead.nanos()).isEqualTo(1_250);
        assertThat(behind.nanos()).isEqualTo(750);
        base.advanceNanos(10);
        assertThat(ahead.nanos()).as("follows its base").isEqualTo(1_260);
        assertThat(behind).hasToString("ManualClock[1010 ns] - 250 ns");
        assertThatThrownBy(() -> TestClocks.offset(null, Duration.ZERO)).isInstanceOf(NullPointerException.class)
                .hasMessage("base");
    }

    /** The README's example, as written there: a session that expires, tested without sleeping. */
    static final class Session {
        private final ClockReader clock;
        private final long expiresAt;

        Session(ClockReader clock, Duration ttl) {
            this.clock = clock;
            this.expiresAt = clock.nanos() + ttl.toNanos();
        }

        boolean expired() {
            return clock.nanos() - expiresAt >= 0;
        }
    }

    @Test
    void theReadmeExampleRunsWithoutSleeping() {
        ManualClock clock = ManualClock.startingAt(0);
        Session session = new Session(clock, Duration.ofMinutes(30));
        clock.advance(Duration.ofMinutes(29));
        assertThat(session.expired()).isFalse();
        clock.advance(Duration.ofMinutes(1));
        assertThat(session.expired()).isTrue();
    }
}
