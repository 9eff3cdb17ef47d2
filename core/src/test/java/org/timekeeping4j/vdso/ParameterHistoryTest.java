package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * The history's verdicts where kvm-clock's pvclock page or the clocksource changes, over made-up sets (no kernel
 * does this on demand): a value is exact only where every set and page that may have served the tick give it, a
 * flagged one's bound covers every candidate, and nothing is bounded across a switch of clocksource.
 */
class ParameterHistoryTest {

    private static final VdsoLayout LAYOUT = VdsoLayout.X86_VDSO_CLOCK_6_15;
    private static final int TSC = 1; // VDSO_CLOCKMODE_TSC
    private static final CounterClock CLOCK = CounterClock.MONOTONIC;

    /**
     * A set seen at ticks [seen, seen + 500] under seq {@code seq}: 1 ns a cycle from cycle_last 0, base 0. On
     * kvm-clock (mode PVCLOCK) its page makes a tick t into pvclock ns {@code system + t / 2}.
     */
    private static long[] set(long seen, long seq, int mode, long system) {
        long[] s = new long[ParameterSet.STRIDE];
        s[ParameterSet.FIRST_SEEN] = seen;
        s[ParameterSet.LAST_SEEN] = seen + 500;
        s[ParameterSet.FIRST_SEQ] = seq;
        s[ParameterSet.LAST_SEQ] = seq;
        for (int b = 0; b < 2; b++) {
            int f = ParameterSet.BASE + b * ParameterSet.BASE_FIELDS;
            s[f + 1] = 1L << 24; // mult
            s[f + 2] = 24; // shift
            s[f + 3] = -1L; // mask
            s[f + 4] = Long.MAX_VALUE >>> 8; // max_cycles
        }
        s[ParameterSet.MODE] = mode;
        if (mode == VclockCode.MODE_PVCLOCK) {
            s[ParameterSet.PV + 1] = system; // tsc_timestamp 0, system_time
            s[ParameterSet.PV + 2] = 1L << 31; // tsc_to_system_mul: half a ns a tick at tsc_shift 0
        }
        return s;
    }

    private static long[] current(long[] s, long seen) {
        long[] c = s.clone();
        c[ParameterSet.FIRST_SEEN] = seen;
        c[ParameterSet.LAST_SEEN] = seen;
        return c;
    }

    @Test
    void aNewPvclockPageUnderTheSameUpdateFlagsTheTicksBetweenBySeveralCandidates() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        long[] a = set(1_000, 8, VclockCode.MODE_PVCLOCK, 0);
        long[] b = set(3_000, 8, VclockCode.MODE_PVCLOCK, 2_000); // the host moved the line 2 us on
        h.add(a);
        h.add(b);
        VdsoNanos into = new VdsoNanos();
        long[] now = current(b, 10_000);

        assertThat(h.lookup(1_400, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).as("seen published after the tick, with its page").isTrue();
        assertThat(into.nanos()).isEqualTo(700); // 0 + 1400 / 2

        assertThat(h.lookup(2_000, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).as("either page served it").isFalse();
        for (long candidate : new long[] {1_000, 3_000}) { // page a, page b
            assertThat(Math.abs(into.nanos() - candidate)).isLessThanOrEqualTo(into.bound());
        }
        assertThat(h.lookup(3_200, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).isTrue();
        assertThat(into.nanos()).isEqualTo(3_600);
    }

    @Test
    void aPageTheSamplerHasNotSeenYetIsACandidateToo() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 8, VclockCode.MODE_PVCLOCK, 0));
        long[] now = current(set(0, 8, VclockCode.MODE_PVCLOCK, 2_000), 3_000); // same update, the page moved
        VdsoNanos into = new VdsoNanos();
        assertThat(h.lookup(2_000, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).isFalse();
        for (long candidate : new long[] {1_000, 3_000}) {
            assertThat(Math.abs(into.nanos() - candidate)).isLessThanOrEqualTo(into.bound());
        }
    }

    @Test
    void nothingIsBoundedAcrossASwitchOfClocksource() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 4, TSC, 0));
        h.add(set(3_000, 6, VclockCode.MODE_PVCLOCK, 0)); // tsc -> kvm-clock: the tsc set goes
        VdsoNanos into = new VdsoNanos();
        long[] now = current(set(0, 6, VclockCode.MODE_PVCLOCK, 0), 10_000);
        assertThat(h.lookup(1_200, CLOCK, now, into)).isEqualTo(ParameterHistory.OLDER);
        assertThat(into.bound()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.lookup(3_200, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).isTrue();
    }

    @Test
    void aSwitchNoLookHasSeenYetBoundsNothingBeforeIt() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 4, TSC, 0));
        long[] now = current(set(0, 6, VclockCode.MODE_PVCLOCK, 0), 3_000); // published now: kvm-clock
        VdsoNanos into = new VdsoNanos();
        assertThat(h.lookup(2_000, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).isFalse();
        assertThat(into.bound()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.lookup(500, CLOCK, now, into)).isEqualTo(ParameterHistory.OLDER);
        assertThat(into.bound()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.lookup(1_200, CLOCK, now, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).as("seen published at and after it").isTrue();
    }

    @Test
    void aTickOlderThanAHistoryThatSawThePageMoveIsUnbounded() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 4, VclockCode.MODE_PVCLOCK, 0));
        h.add(set(3_000, 6, VclockCode.MODE_PVCLOCK, 2_000));
        VdsoNanos into = new VdsoNanos();
        long[] now = current(set(0, 6, VclockCode.MODE_PVCLOCK, 2_000), 10_000);
        assertThat(h.lookup(500, CLOCK, now, into)).isEqualTo(ParameterHistory.OLDER);
        assertThat(into.bound()).isEqualTo(Long.MAX_VALUE);

        ParameterHistory steady = new ParameterHistory(LAYOUT, 1_000); // 1 us: the first set ages out
        steady.add(set(1_000, 4, VclockCode.MODE_PVCLOCK, 0));
        steady.add(set(3_000, 10, VclockCode.MODE_PVCLOCK, 0));
        steady.add(set(5_000, 20, VclockCode.MODE_PVCLOCK, 0)); // not next: appended, the oldest goes
        long[] steadyNow = current(set(0, 20, VclockCode.MODE_PVCLOCK, 0), 10_000);
        assertThat(steady.lookup(1_200, CLOCK, steadyNow, into)).isEqualTo(ParameterHistory.OLDER);
        assertThat(into.bound()).as("one page: the rate spread the history saw").isLessThan(Long.MAX_VALUE);
        assertThat(steady.lookup(500, CLOCK, steadyNow, into)).isEqualTo(ParameterHistory.OLDER);
        assertThat(into.bound()).as("before the history began").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aConvertersLaterSightingOfTheNewestSetIsKeptSoLaterVerdictsAgree() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 4, TSC, 0));
        VdsoNanos into = new VdsoNanos();
        assertThat(h.lookup(3_400, CLOCK, current(set(0, 4, TSC, 0), 3_500), into))
                .isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).as("seen published at 1,000 and again at 3,500").isTrue();
        long nanos = into.nanos();
        // An update no look saw (a daemon's frequency change), then the next tick's, off the line: seen at 5,000.
        long[] next = set(5_000, 8, TSC, 0);
        next[ParameterSet.BASE + 1] = (1L << 24) + (1L << 14);
        h.add(next);
        assertThat(h.lookup(3_400, CLOCK, current(next, 6_000), into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).as("the sighting at 3,500 was kept").isTrue();
        assertThat(into.nanos()).isEqualTo(nanos);
    }

    @Test
    void aConvertersSightingOfANewerSetIsKeptSoLaterVerdictsAgree() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        h.add(set(1_000, 4, TSC, 0));
        long[] freq = set(0, 6, TSC, 0); // a daemon's frequency change: same cycle_last, another line
        freq[ParameterSet.BASE + 1] = (1L << 24) + (1L << 20);
        VdsoNanos into = new VdsoNanos();
        assertThat(h.lookup(1_700, CLOCK, current(freq, 3_000), into)).isEqualTo(ParameterHistory.FOUND);
        boolean first = into.exact();
        long firstNanos = into.nanos();
        long firstBound = into.bound();
        // The sampler looks only later, after another update: the set the converter saw must still be there.
        h.add(set(5_000, 10, TSC, 0));
        assertThat(h.lookup(1_700, CLOCK, current(set(0, 10, TSC, 0), 6_000), into))
                .isEqualTo(ParameterHistory.FOUND);
        assertThat(into.exact()).isEqualTo(first);
        assertThat(into.nanos()).isEqualTo(firstNanos);
        assertThat(into.bound()).isEqualTo(firstBound);
    }

    @Test
    void aConvertersSightingOfATicksUpdateShouldSetTheTickPhaseAsTheSamplersWould() {
        long[] a = seenAfter(ParameterSetTest.set(4, 5_000_000_000L, 6_710_886L, 123_456_789L << 24), 100);
        long[] b = seenAfter(ParameterSetTest.update(a, 1, 3_000, 40), 0); // the kernel read 3,000 past cycle_last
        long met = b[ParameterSet.BASE] + 3_000;
        long[] seen = current(b, met + 5_000);

        ParameterHistory bySampler = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        bySampler.add(a);
        bySampler.add(seen);
        assertThat(bySampler.lastMeeting()).as("the sampler's own sighting").isEqualTo(met);

        ParameterHistory byConverter = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        byConverter.add(a);
        VdsoNanos into = new VdsoNanos();
        assertThat(byConverter.lookup(met + 4_000, CLOCK, seen, into)).isEqualTo(ParameterHistory.FOUND);
        assertThat(byConverter.lastMeeting()).as("a converter saw the update first").isEqualTo(met);
        byConverter.add(current(b, met + 6_000)); // the sampler's look after it: the same set, a later sighting
        assertThat(byConverter.lastMeeting()).isEqualTo(met);

        // A set two updates on (one no look saw) tells no meeting point: its line may have been the unseen one's.
        long[] c = seenAfter(ParameterSetTest.update(ParameterSetTest.update(b, 1, 1_000, 7), 1, 2_000, -30), 0);
        assertThat(byConverter.lookup(met + 7_000, CLOCK, current(c, c[ParameterSet.BASE] + 2_500), into))
                .isEqualTo(ParameterHistory.FOUND);
        assertThat(byConverter.lastMeeting()).as("after a skipped update").isEqualTo(met);
    }

    @Test
    void aSetOfRealtimeShouldNotShortenTheTickTheSamplerLearns() {
        ParameterHistory h = new ParameterHistory(LAYOUT, Long.MAX_VALUE / 4);
        long[] a = ParameterSetTest.set(4, 5_000_000_000L, 6_710_886L, 0);
        long[] b = ParameterSetTest.update(a, 1, 3_000, 0); // the next tick: one cycle_interval accumulated
        h.add(seenAfter(a, 100));
        h.add(seenAfter(b, 3_100));
        long tick = b[ParameterSet.BASE] - a[ParameterSet.BASE];
        assertThat(h.tickCycles()).isEqualTo(tick);
        // clock_settime half a tick later: timekeeping_forward_now puts cycle_last where it read the counter.
        long[] set = ParameterSetTest.set(8, b[ParameterSet.BASE] + tick / 2, 6_710_886L, 0);
        set[ParameterSet.TIMES] += 1; // REALTIME's basetime one second on
        h.add(seenAfter(set, 100));
        assertThat(h.tickCycles()).as("half a tick is no tick").isEqualTo(tick);
        long[] next = ParameterSetTest.update(set, 1, 2_000, 0);
        h.add(seenAfter(next, 2_100));
        assertThat(h.tickCycles()).isEqualTo(tick);
    }

    /** {@code s} as a look saw it, {@code cycles} past its cycle_last, on the TSC. */
    private static long[] seenAfter(long[] s, long cycles) {
        s[ParameterSet.MODE] = TSC;
        s[ParameterSet.FIRST_SEEN] = s[ParameterSet.BASE] + cycles;
        s[ParameterSet.LAST_SEEN] = s[ParameterSet.BASE] + cycles;
        return s;
    }
}
