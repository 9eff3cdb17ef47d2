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
 * A step moves offs_real and offs_tai together: TAI - REALTIME (r1, the TAI offset) must read 37 s whole,
 * and REALTIME (r2) must be the old or the new value. One offset new and the other old is a torn read.
 */
@JCStressTest
@Outcome(id = "37, 1000", expect = ACCEPTABLE, desc = "before the step")
@Outcome(id = "37, 2000", expect = ACCEPTABLE, desc = "after the step")
@Outcome(expect = FORBIDDEN, desc = "torn read: offs_real and offs_tai of different states")
@State
public class SeqlockStepTest {
    private static final long NS = 1_000_000_000L;
    private final Timekeeper tk = Timekeeper.builder(new FixedCounter(42)).realtimeNanos(1_000 * NS)
            .taiOffsetSeconds(37).historySize(2).build();

    @Actor
    public void writer() {
        tk.step(1_000 * NS);
    }

    @Actor
    public void reader(JJ_Result r) {
        r.r1 = tk.taiOffsetSeconds();
        r.r2 = tk.realtimeNanos() / NS;
    }
}
