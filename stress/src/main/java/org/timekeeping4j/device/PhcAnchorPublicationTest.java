package org.timekeeping4j.device;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The PHC discipline's publication ({@link PhcAnchor.Slot}): its thread publishes a new anchor while a
 * {@link FastPtpClock} read takes the newest. Every field of anchor k is derived from k; a reader must see anchor 1
 * or anchor 2 whole, never a field of one with another of the other or a field left at its default. (In the device
 * package of this module: the slot is the device package's own.)
 */
@JCStressTest
@Outcome(id = {"1, 1", "2, 1"}, expect = ACCEPTABLE, desc = "the anchor before the publication, or after it, whole")
@Outcome(expect = FORBIDDEN, desc = "a torn or half-built anchor")
@State
public class PhcAnchorPublicationTest {
    private final PhcAnchor.Slot slot = new PhcAnchor.Slot();

    {
        slot.publish(anchor(1));
    }

    static PhcAnchor anchor(long k) {
        return new PhcAnchor(1000 * k, 2000 * k, 3 * k, 4.0 * k, 5.0 * k, 6.0 * k, PtpClock.Method.PRECISE, 7 * k, k,
                8 * k);
    }

    @Actor
    public void discipline() {
        slot.publish(anchor(2));
    }

    @Actor
    public void reader(JJ_Result r) {
        PhcAnchor a = slot.read();
        long k = a.generation();
        boolean whole = a.raw() == 1000 * k && a.phc() == 2000 * k && a.halfWidthNanos() == 3 * k
                && a.ratePpb() == 4.0 * k && a.rateErrorPpb() == 5.0 * k && a.holdoverPpb() == 6.0 * k
                && a.method() == PtpClock.Method.PRECISE && a.intervalNanos() == 7 * k && a.disruptions() == 8 * k;
        r.r1 = k;
        r.r2 = whole ? 1 : 0;
    }
}
