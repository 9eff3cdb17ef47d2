package org.timekeeping4j.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.ParameterHistory;
import org.timekeeping4j.vdso.ParameterSet;
import org.timekeeping4j.vdso.VdsoLayout;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * The parameter history's two writers: the sampler appends the set it saw (set 10, seen at counter 10,000), while
 * a converter that holds a later sighting of a later set (set 11, seen at 11,000), which the ring lacks, keeps it
 * there ({@code offer}) and converts a counter value of set 10's range. Sets as in {@link ParameterHistoryGrowTest}
 * (set k: value(c) = c + k ns, seq 4 k). Either the sampler's set came first: both the converter and a later
 * conversion find it, exact (c + 10); or the converter's came first: the sampler's earlier sighting adds nothing,
 * and both judge the value between set 9 and set 11, flagged (-1). A verdict that changes after both writers are
 * done (a set kept out of counter order, a sighting lost) is forbidden.
 */
@JCStressTest
@Outcome(id = {"10, 10", "-1, -1"}, expect = ACCEPTABLE, desc = "one order of the two writers, the same verdict after")
@Outcome(expect = FORBIDDEN, desc = "the verdict changed once both were kept, or a torn view")
@State
public class ParameterHistoryOfferTest {
    private static final long COUNTER = 10_200;
    private final ParameterHistory history = new ParameterHistory(VdsoLayout.X86_VDSO_CLOCK_6_15, Long.MAX_VALUE / 4);
    private final long[] sampled = ParameterHistoryGrowTest.set(10);
    private final long[] current = ParameterHistoryGrowTest.set(11);
    private final VdsoNanos converterInto = new VdsoNanos();
    private final VdsoNanos arbiterInto = new VdsoNanos();

    {
        for (int k = 0; k < 10; k++) {
            history.add(ParameterHistoryGrowTest.set(k));
        }
        current[ParameterSet.LAST_SEEN] = current[ParameterSet.FIRST_SEEN]; // the converter's look: at 11,000
    }

    @Actor
    public void sampler() {
        history.add(sampled);
    }

    @Actor
    public void converter(II_Result r) {
        r.r1 = verdict(history.lookup(COUNTER, CounterClock.MONOTONIC, current, converterInto), converterInto);
    }

    @Arbiter
    public void after(II_Result r) {
        r.r2 = verdict(history.lookup(COUNTER, CounterClock.MONOTONIC, current, arbiterInto), arbiterInto);
    }

    /** The set's k where exact, -1 where flagged, -10 - the result code where no set was found. */
    private static int verdict(int found, VdsoNanos into) {
        if (found != 0) {
            return -10 - found;
        }
        return into.exact() ? (int) (into.nanos() - COUNTER) : -1;
    }
}
