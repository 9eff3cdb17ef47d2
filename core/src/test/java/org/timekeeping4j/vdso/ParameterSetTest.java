package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * The parameter sets' line arithmetic against the kernel's own update rules, simulated: accumulation in whole
 * cycle intervals with the old mult (logarithmic_accumulation), then timekeeping_adjust's change of mult by adj and
 * of the base by the cycles read past the new cycle_last times adj (timekeeping_apply_adjustment).
 */
class ParameterSetTest {

    private static final VdsoLayout LAYOUT = VdsoLayout.X86_VDSO_CLOCK_6_15;
    private static final int SHIFT = 24;
    private static final long INTERVAL = 10_000_000L; // cycles per tick (4 ms at 2.5 GHz)
    /** basetime seconds per clock: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI (by ordinal). */
    private static final long[] SEC = {1_796_000_000L, 36_000L, 36_001L, 36_100L, 1_796_000_037L};

    /** A set: both bases at {@code cycleLast}, HRES mult {@code mult}, every HRES clock at {@code nsecShifted}. */
    static long[] set(long seq, long cycleLast, long mult, long nsecShifted) {
        long[] s = new long[ParameterSet.STRIDE];
        s[ParameterSet.FIRST_SEQ] = seq;
        s[ParameterSet.LAST_SEQ] = seq;
        for (int b = 0; b < 2; b++) {
            int f = ParameterSet.BASE + b * ParameterSet.BASE_FIELDS;
            s[f] = cycleLast;
            s[f + 1] = b == 0 ? mult : 6_710_886L; // the raw line: 0.4 ns a cycle, never steered
            s[f + 2] = SHIFT;
            s[f + 3] = -1L; // mask
            s[f + 4] = Long.MAX_VALUE >>> 8; // max_cycles
        }
        for (CounterClock c : CounterClock.values()) {
            int t = ParameterSet.TIMES + 2 * c.ordinal();
            s[t] = SEC[c.ordinal()];
            s[t + 1] = c.raw() ? cycleLast * 6_710_886L % (1_000_000_000L << SHIFT) : nsecShifted;
        }
        return s;
    }

    /** The kernel's next update from {@code a}: {@code n} intervals accumulated, then mult changed by adj at now. */
    static long[] update(long[] a, int n, long readPast, long adj) {
        long cl = a[ParameterSet.BASE] + n * INTERVAL;
        long mult = a[ParameterSet.BASE + 1];
        long nsec = a[ParameterSet.TIMES + 1] + n * INTERVAL * mult; // accumulated with the old mult
        nsec -= readPast * adj; // timekeeping_apply_adjustment: continuous at the counter value read (cl + readPast)
        long[] b = set(a[ParameterSet.LAST_SEQ] + 2, cl, mult + adj, nsec);
        int raw = ParameterSet.TIMES + 2 * CounterClock.MONOTONIC_RAW.ordinal();
        b[raw + 1] = a[raw + 1] + n * INTERVAL * 6_710_886L;
        return b;
    }

    @Test
    void anAdjustedUpdateShouldMeetTheOldLineAtTheCounterValueTheKernelRead() {
        SplittableRandom rnd = new SplittableRandom(46);
        long[] a = set(100, 5_000_000_000L, 6_710_886L, 123_456_789L << SHIFT);
        for (int i = 0; i < 1000; i++) {
            long readPast = rnd.nextLong(INTERVAL); // the tick's latency: cycles past the new cycle_last
            long adj = rnd.nextBoolean() ? rnd.nextLong(-3, 4) : rnd.nextLong(-200, 200); // dither, or a new rate
            long[] b = update(a, 1 + rnd.nextInt(3), readPast, adj);
            long read = b[ParameterSet.BASE] + readPast;
            if (adj == 0) {
                assertThat(ParameterSet.sameLine(a, 0, b, 0)).isTrue();
                assertThat(ParameterSet.meetingPoint(a, 0, b, 0)).isEqualTo(Long.MIN_VALUE);
            } else {
                assertThat(ParameterSet.sameLine(a, 0, b, 0)).isFalse();
                assertThat(ParameterSet.meetingPoint(a, 0, b, 0)).isEqualTo(read);
                // Both lines give the same value there, for every steered clock; the raw line never moved.
                for (CounterClock c : CounterClock.values()) {
                    assertThat(ParameterSet.value(LAYOUT, b, 0, c, read)).as("%s at the meeting point", c)
                            .isEqualTo(ParameterSet.value(LAYOUT, a, 0, c, read));
                }
                // A microsecond on (2,500 cycles), they differ by adj x 2,500 / 2^24 ns at most: rounding only.
                long later = read + 2_500;
                assertThat(Math.abs(ParameterSet.value(LAYOUT, b, 0, CounterClock.MONOTONIC, later)
                        - ParameterSet.value(LAYOUT, a, 0, CounterClock.MONOTONIC, later))).isLessThanOrEqualTo(1);
            }
            a = b;
        }
    }

    @Test
    void aSetOfRealtimeShouldBreakTheLineAndTellNoMeetingPoint() {
        long[] a = set(100, 5_000_000_000L, 6_710_886L, 0);
        long[] b = update(a, 1, 1_000, 1);
        b[ParameterSet.TIMES] += 1; // REALTIME's basetime one second on: clock_settime
        assertThat(ParameterSet.meetingPoint(a, 0, b, 0)).isEqualTo(Long.MIN_VALUE);
        long[] c = update(a, 1, 1_000, 0);
        c[ParameterSet.TIMES] += 1;
        assertThat(ParameterSet.sameLine(a, 0, c, 0)).isFalse();
    }

    @Test
    void seqCountsShouldFollowEachOtherByTwoAcrossTheWrap() {
        assertThat(ParameterSet.next(100, 102)).isTrue();
        assertThat(ParameterSet.next(100, 104)).isFalse();
        assertThat(ParameterSet.next(0xFFFF_FFFEL, 0)).isTrue(); // u32 wraps
    }
}
