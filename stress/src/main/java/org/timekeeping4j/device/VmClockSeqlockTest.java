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
 * VmClock's seqlock read ({@code VmClock.page()}, through linux.Seqcount) against a writer that updates the page
 * as the hypervisor does (seq_count odd, a write barrier, the fields, a write barrier, seq_count even): the
 * reader sees time_sec and counter_value of one update, never one of each. Both are 1 before, 2 after. Fails
 * ("2, 1") when page() re-checks seq_count before its copies; on x86 plain loads in Seqcount did not fail it.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the page before the update")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "the page after the update")
@Outcome(expect = FORBIDDEN, desc = "torn: time_sec and counter_value of different updates")
@State
public class VmClockSeqlockTest {
    private static final VarHandle SEQ = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment page = Arena.ofAuto().allocate(VmClockLayout.HEADER_END, 8);
    private final VmClock clock;

    {
        page.set(ValueLayout.JAVA_INT, VmClockLayout.OFF_SEQ, 2);
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_TIME_SEC, 1);
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_COUNTER_VALUE, 1);
        clock = VmClock.overPage(page);
    }

    @Actor
    public void hypervisor() {
        SEQ.setOpaque(page, VmClockLayout.OFF_SEQ, 3);
        VarHandle.storeStoreFence(); // the driver's smp_wmb after the odd seq_count
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_TIME_SEC, 2);
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_COUNTER_VALUE, 2);
        SEQ.setRelease(page, VmClockLayout.OFF_SEQ, 4); // smp_wmb, then the even seq_count
    }

    @Actor
    public void reader(JJ_Result r) {
        VmClockPage p = clock.page();
        r.r1 = p.timeSec();
        r.r2 = p.counterValue();
    }
}
