package org.timekeeping4j.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * An update republishes cycle_last, base and xtime together. The counter stands 5 s past the last update,
 * so the value is 5 s + 1 ns before and after the update; any mix of the old and new state's fields
 * (new cycle_last with old base: 1 ns; old cycle_last with new base: 10 s + 1 ns) is a torn read.
 */
@JCStressTest
@Outcome(id = "5000000001, 5000000001", expect = ACCEPTABLE, desc = "old or new state, read whole")
@Outcome(expect = FORBIDDEN, desc = "torn read: fields of two states mixed")
@State
public class SeqlockUpdateTest {
    private static final long START = -3_000_000_000L; // the counter wraps 2^64 during the run
    private final FixedCounter counter = new FixedCounter(START);
    private final Timekeeper tk = Timekeeper.builder(counter).monotonicNanos(1).historySize(2).build();

    {
        counter.set(START + 5_000_000_000L);
    }

    @Actor
    public void writer() {
        tk.update();
    }

    @Actor
    public void reader(JJ_Result r) {
        r.r1 = tk.monotonicNanos();
        r.r2 = tk.boottimeNanos();
    }
}
