package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.Snapshot;

/**
 * Events recorded each between two clock_gettime reads of its clock (the clocks in turn), and their export judged
 * against those brackets: an event said exact must lie inside its bracket with a bound of 0, a flagged one within
 * its bound of it ({@link Clocks#snapshotAt}, which must agree with the export). The payload is the event's index.
 */
public final class BracketedEvents {

    /** The clocks the events take in turn. */
    public static final ClockId[] CLOCKS = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI,
        ClockId.MONOTONIC_RAW};

    private final EventRecorder recorder;
    private long[] lo = new long[1024];
    private long[] hi = new long[1024];
    private long[] ticks = new long[1024];
    private int count;

    /** The export's verdict: how many events came out exact and flagged, from which index on. */
    public record Judged(int exact, int flagged) {
        /** {@return exact + flagged} */
        public int total() {
            return exact + flagged;
        }
    }

    /** Events into {@code recorder}, which must hold every one recorded (it is exported whole). */
    public BracketedEvents(EventRecorder recorder) {
        this.recorder = recorder;
    }

    /** Records one event between two reads of its clock; {@return its index} */
    public int record() {
        int i = count;
        if (i == ticks.length) {
            lo = Arrays.copyOf(lo, 2 * i);
            hi = Arrays.copyOf(hi, 2 * i);
            ticks = Arrays.copyOf(ticks, 2 * i);
        }
        ClockId c = CLOCKS[i % CLOCKS.length];
        lo[i] = KernelClocks.nanos(c);
        ticks[i] = Clocks.ticks();
        hi[i] = KernelClocks.nanos(c);
        recorder.record(ticks[i], i);
        count = i + 1;
        return i;
    }

    /** {@return how many events were recorded} */
    public int count() {
        return count;
    }

    /**
     * Exports every event on each clock and asserts the honesty of each of those with an index in [from, to): an
     * exact one inside its bracket, a flagged one within its bound.
     *
     * @return how many of them came out exact and flagged
     */
    public Judged judge(int from, int to) {
        int[] exact = new int[1];
        int[] flagged = new int[1];
        Snapshot s = new Snapshot();
        for (int k = 0; k < CLOCKS.length; k++) {
            ClockId clock = CLOCKS[k];
            int kk = k;
            recorder.export(clock, (nanos, payload, extrapolated) -> {
                int i = (int) payload;
                if (i % CLOCKS.length != kk || i < from || i >= to) {
                    return;
                }
                Clocks.snapshotAt(ticks[i], clock, s);
                assertThat(s.nanos()).as("%s event %d: snapshotAt and export", clock, i).isEqualTo(nanos);
                assertThat(s.isExtrapolated()).isEqualTo(extrapolated);
                if (!extrapolated) {
                    exact[0]++;
                    assertThat(nanos).as("%s event %d, exact", clock, i).isBetween(lo[i], hi[i]);
                    assertThat(s.errorBoundNanos()).isZero();
                } else {
                    flagged[0]++;
                    long off = nanos < lo[i] ? lo[i] - nanos : Math.max(0, nanos - hi[i]);
                    assertThat(off).as("%s event %d, flagged", clock, i).isLessThanOrEqualTo(s.errorBoundNanos());
                }
            });
        }
        assertThat(exact[0] + flagged[0]).as("events judged").isEqualTo(to - from);
        return new Judged(exact[0], flagged[0]);
    }
}
