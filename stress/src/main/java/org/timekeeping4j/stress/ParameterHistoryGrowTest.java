package org.timekeeping4j.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JI_Result;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.ParameterHistory;
import org.timekeeping4j.vdso.ParameterSet;
import org.timekeeping4j.vdso.VdsoLayout;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * The parameter history's publication: the sampler (here the one writer; {@link ParameterHistoryOfferTest} has
 * both) appends a set, which here also grows the ring
 * (a new array, every set copied), while a converter locates the set that served a counter value under an
 * optimistic read (StampedLock), validated, else again under the read lock. Each set k is the line value(c) = c + k
 * ns, seen published from counter 1000 k to 1000 k + 500; the counter value converted lies in the appended set's
 * range. Before the append it converts on the newest set still published (k = 1023), after it on the new one
 * (k = 1024): c + 1023 or c + 1024, exact. Anything else is a torn view of the ring.
 */
@JCStressTest
@Outcome(id = {"1023, 0", "1024, 0"}, expect = ACCEPTABLE, desc = "the newest set before the append, or after it")
@Outcome(expect = FORBIDDEN, desc = "a torn view: fields of two sets, or a set half copied by the grow")
@State
public class ParameterHistoryGrowTest {
    private static final int SETS = 1024; // the ring's first size: the next append grows it
    private static final long COUNTER = 1000L * SETS + 100;
    private final ParameterHistory history = new ParameterHistory(VdsoLayout.X86_VDSO_CLOCK_6_15, Long.MAX_VALUE / 4);
    private final long[] appended = set(SETS);
    private final long[] current = set(SETS - 1);
    private final VdsoNanos into = new VdsoNanos();

    {
        for (int k = 0; k < SETS; k++) {
            history.add(set(k));
        }
        current[ParameterSet.FIRST_SEEN] = COUNTER + 1_000_000; // the converter's own look: after the counter value
    }

    /** Set k: value(c) = c + k ns (1 ns a cycle at shift 24), seq 4 k (never consecutive: no merging). */
    static long[] set(long k) {
        long[] s = new long[ParameterSet.STRIDE];
        s[ParameterSet.FIRST_SEEN] = 1000 * k;
        s[ParameterSet.LAST_SEEN] = 1000 * k + 500;
        s[ParameterSet.FIRST_SEQ] = 4 * k;
        s[ParameterSet.LAST_SEQ] = 4 * k;
        for (int b = 0; b < 2; b++) {
            int f = ParameterSet.BASE + b * ParameterSet.BASE_FIELDS;
            s[f] = 1000 * k; // cycle_last
            s[f + 1] = 1L << 24; // mult
            s[f + 2] = 24; // shift
            s[f + 3] = -1L; // mask
            s[f + 4] = Long.MAX_VALUE >>> 8; // max_cycles
        }
        for (CounterClock c : CounterClock.values()) {
            s[ParameterSet.TIMES + 2 * c.ordinal() + 1] = (1000 * k + k) << 24;
        }
        return s;
    }

    @Actor
    public void sampler() {
        history.add(appended);
    }

    @Actor
    public void converter(JI_Result r) {
        int found = history.lookup(COUNTER, CounterClock.MONOTONIC, current, into);
        r.r1 = found == 0 && into.exact() ? into.nanos() - COUNTER : -found;
        r.r2 = (int) Math.min(Integer.MAX_VALUE, into.bound());
    }
}
