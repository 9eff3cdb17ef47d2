package org.timekeeping4j.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;
import org.timekeeping4j.EventRecorder;

/**
 * EventRecorder's lap check: a ring of one slot holds event 0 (tick 100, payload 0) while the writer records
 * event 1 (tick 101, payload 1) into the same slot and an export runs. The export hands over event 0 whole,
 * event 1 whole, or nothing (event 0 overwritten while it was read); a payload with the other lap's tick is a
 * torn event (export used to accept the slot while the writer was storing the next lap into it). Also fails
 * when record() stores the slot before its odd seq; on x86 dropping only its storeStoreFence did not fail it.
 */
@JCStressTest
@Outcome(id = "100, 0", expect = ACCEPTABLE, desc = "event 0, read before the writer began")
@Outcome(id = "101, 1", expect = ACCEPTABLE, desc = "event 1, published")
@Outcome(id = "-1, -1", expect = ACCEPTABLE_INTERESTING, desc = "event 0 lapped while read: skipped")
@Outcome(id = {"100, 1", "101, 0"}, expect = FORBIDDEN, desc = "torn: a payload with another lap's tick")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class EventRecorderLapTest {
    private final EventRecorder recorder = new EventRecorder(1);

    {
        recorder.record(100, 0);
    }

    @Actor
    public void writer() {
        recorder.record(101, 1);
    }

    @Actor
    public void exporter(JJ_Result r) {
        r.r1 = -1;
        r.r2 = -1;
        recorder.exportTicks((tick, payload) -> {
            r.r1 = tick;
            r.r2 = payload;
        });
    }
}
