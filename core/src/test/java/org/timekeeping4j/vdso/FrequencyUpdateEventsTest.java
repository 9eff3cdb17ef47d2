package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.testing.BracketedEvents;
import org.timekeeping4j.testing.HostSteering;

/**
 * Events exported just after a time daemon's frequency change, before the parameter history's sampler looked
 * again. adjtimex(ADJ_FREQUENCY) makes the kernel change mult at once (timekeeping_advance(TK_ADV_FREQ)) while
 * cycle_last stays where the last tick left it, so a tick read between that cycle_last and the daemon's call was
 * served by the old line: the new line puts it elsewhere by the rate change times the tick's age (about 400 ns
 * for 400 ppm over 1 ms). Each trial records events for about 1 ms after a kernel update, changes the frequency by
 * 400 ppm and exports at once: every event said exact must lie inside its clock_gettime bracket, every flagged one
 * within its bound. Runs where {@link HostSteering} lets a test steer (CI's step 2); the clock state is restored.
 */
class FrequencyUpdateEventsTest {

    @Test
    void eventsReadBeforeAFrequencyChangeShouldNotBeCalledExactOnTheNewLine() throws Exception {
        KernelVdsoTest.assumeExactModePossible();
        HostSteering.assumeMaySteer();
        assertThat(Clocks.awaitExactMode(Duration.ofSeconds(10))).isTrue();
        int exact = 0;
        int flagged = 0;
        long[] multRange = {Long.MAX_VALUE, Long.MIN_VALUE};
        try (ClockSteering steer = new ClockSteering()) {
            for (int trial = 0; trial < 40; trial++) {
                BracketedEvents events = new BracketedEvents(new EventRecorder(1 << 14)); // asks for the history
                long seq = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).seq();
                while (KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).seq() == seq) {
                    Thread.onSpinWait(); // until the kernel's next update: the events then follow its cycle_last
                }
                long t0 = System.nanoTime();
                while (System.nanoTime() - t0 < 1_000_000L) { // a quarter of a tick at HZ=250
                    events.record();
                }
                steer.frequencyPpm(trial % 2 == 0 ? 400 : -400);
                long mult = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).mult();
                multRange[0] = Math.min(multRange[0], mult);
                multRange[1] = Math.max(multRange[1], mult);
                BracketedEvents.Judged j = events.judge(0, events.count()); // at once: asserts each one's honesty
                exact += j.exact();
                flagged += j.flagged();
            }
        }
        System.out.println("events exported just after a frequency change: " + exact + " exact, " + flagged
                + " flagged; mult " + multRange[0] + ".." + multRange[1] + "; history: "
                + Clocks.diagnostics().history());
        assertThat((multRange[1] - multRange[0]) / (double) multRange[0]).as("the changes reached the kernel")
                .isGreaterThan(700e-6);
        assertThat(exact + flagged).as("events judged").isGreaterThan(1_000);
    }
}
