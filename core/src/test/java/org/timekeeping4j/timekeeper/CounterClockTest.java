package org.timekeeping4j.timekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.SeqlockStub;

/** The page layout below the timekeeper ({@code machine.SeqlockStub}) has one record per {@link CounterClock}. */
class CounterClockTest {

    @Test
    void shouldHaveOneSeqlockPageRecordPerClock() {
        assertThat(SeqlockStub.RECORDS).isEqualTo(CounterClock.values().length);
        for (CounterClock c : CounterClock.values()) {
            assertThat(c.record()).as("%s", c).isBetween(0, SeqlockStub.RECORDS - 1);
        }
    }
}
