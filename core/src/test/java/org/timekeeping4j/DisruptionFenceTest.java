package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.serving.TicksConverter;
import org.timekeeping4j.disruption.Disruptions;

/** The one conversion of ticks, TicksConverter, never calls a tick from before a seen disruption exact. */
class DisruptionFenceTest {

    @Test
    void aTickThatConvertedExactlyNoLongerDoesOnceADisruptionIsSeenAfterIt() {
        TicksConverter c = new TicksConverter();
        for (int i = 0; i < 1000; i++) {
            long t = Clocks.ticks();
            c.convert(t, ClockId.MONOTONIC_RAW);
            if (!c.exact()) {
                continue; // exact mode: the kernel's update window moved on in between; take another tick
            }
            Disruptions.seen(Clocks.ticks());
            assertThat(Disruptions.before(t)).isTrue();
            c.convert(t, ClockId.MONOTONIC_RAW);
            assertThat(c.exact()).as("the same tick, converted right after the disruption was seen").isFalse();
            long later = Clocks.ticks();
            assertThat(Disruptions.before(later)).isFalse();
            return;
        }
        fail("no conversion of a fresh tick was exact in 1000 tries");
    }
}
