package org.timekeeping4j.device;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The served bounds' publication: the refresher samples its source into a new anchor and publishes it
 * ({@code ServedBounds.refresh}, the one store), while a read loads the anchor as {@code ServedBounds.now} does.
 * The source here builds each anchor with its bound equal to twice its drift, so a reader that sees an anchor
 * whose fields disagree has seen the reference before the object's initialisation.
 */
@JCStressTest
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "the first anchor (published before the actors run)")
@Outcome(id = "7, 14", expect = ACCEPTABLE, desc = "the refresher's anchor, whole")
@Outcome(expect = FORBIDDEN, desc = "an anchor whose fields are not yet initialised")
@State
public class ServedBoundsAnchorTest {

    private final ServedBounds served;
    private volatile long drift = 1;

    public ServedBoundsAnchorTest() {
        served = new ServedBounds(new BoundSource() {
            @Override
            public ServedBounds.Anchor sample() {
                long d = drift;
                return new ServedBounds.Anchor(d, 0, 2 * d, d, TimeBounds.Status.SYNCHRONIZED, 1, 1, "stress");
            }

            @Override
            public int periodMillis() {
                return 1000;
            }

            @Override
            public String description() {
                return "stress";
            }
        });
        served.refresh(false);
        drift = 7;
    }

    @Actor
    public void refresher() {
        served.refresh(false);
    }

    @Actor
    public void reader(JJ_Result r) {
        ServedBounds.Anchor a = served.anchor(); // the volatile load every read begins with; pairs with refresh
        r.r1 = a.driftPpb();
        r.r2 = a.boundNanos();
    }
}
