package org.timekeeping4j.device;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * ClockBound's seqlock read ({@code ClockBound.readSegment}, through linux.Seqcount's 16-bit count) against a
 * writer that updates the segment as the ClockBound daemon does (generation odd, a fence, the body, the even
 * generation released): the reader sees as_of and bound_nsec of one update, never one of each. Both are 1
 * before, 2 after. Fails ("1, 2", "2, 1") when readSegment re-checks the generation before its copies; on x86
 * plain loads in Seqcount's begin16 and retry16 did not fail it.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the segment before the update")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "the segment after the update")
@Outcome(expect = FORBIDDEN, desc = "torn: as_of and bound_nsec of different updates")
@State
public class ClockBoundSeqlockTest {
    private static final VarHandle GENERATION = ValueLayout.JAVA_SHORT.varHandle();

    private final MemorySegment segment = Arena.ofAuto().allocate(ClockBound.SEGMENT_SIZE, 8);
    private final ClockBound reader;
    private final TimeBounds into = new TimeBounds();

    {
        segment.set(ValueLayout.JAVA_SHORT, ClockBound.OFF_VERSION, (short) ClockBound.VERSION);
        segment.set(ValueLayout.JAVA_SHORT, ClockBound.OFF_GENERATION, (short) 2);
        segment.set(ValueLayout.JAVA_LONG, ClockBound.OFF_AS_OF, 1);
        segment.set(ValueLayout.JAVA_LONG, ClockBound.OFF_BOUND_NSEC, 1);
        reader = ClockBound.overSegment(segment);
    }

    @Actor
    public void daemon() {
        GENERATION.setOpaque(segment, ClockBound.OFF_GENERATION, (short) 3);
        VarHandle.storeStoreFence(); // the daemon's fence after the odd generation
        segment.set(ValueLayout.JAVA_LONG, ClockBound.OFF_AS_OF, 2);
        segment.set(ValueLayout.JAVA_LONG, ClockBound.OFF_BOUND_NSEC, 2);
        GENERATION.setRelease(segment, ClockBound.OFF_GENERATION, (short) 4); // release: the body before it
    }

    @Actor
    public void reader(JJ_Result r) {
        reader.readSegment(into);
        r.r1 = into.asOfSec;
        r.r2 = into.boundNsec;
    }
}
