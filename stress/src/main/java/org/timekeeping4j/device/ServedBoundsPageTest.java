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
import org.openjdk.jcstress.infra.results.II_Result;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * The served bounds' read of a watched VMClock page ({@code ServedBounds.now} through {@code VmClockWatch.look})
 * against a hypervisor that, in one seqlocked update, moves the disruption marker and sets DISRUPTION_IMMINENT:
 * a read is either wholly before it (SYNCHRONIZED, NONE) or wholly after it (DISRUPTED, IMMINENT), never a status
 * from one update and the flags from the other. r1 is the status's ordinal, r2 the expectation's.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the page before the update: served, nothing expected")
@Outcome(id = "3, 2", expect = ACCEPTABLE, desc = "the page after it: disrupted, and imminent said")
@Outcome(expect = FORBIDDEN, desc = "torn: the marker of one update and the flags of the other")
@State
public class ServedBoundsPageTest {
    private static final VarHandle SEQ = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment page = Arena.ofAuto().allocate(VmClockLayout.HEADER_END, 8);
    private final ServedBounds served;
    private final TimeBounds into = new TimeBounds();

    {
        page.set(ValueLayout.JAVA_INT, VmClockLayout.OFF_SEQ, 2);
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_MARKER, 1);
        served = new ServedBounds(new BoundSource() {
            @Override
            public ServedBounds.Anchor sample() {
                long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
                long real = Clocks.nanos(ClockId.REALTIME);
                return new ServedBounds.Anchor(raw, real - raw, 10_000, 50_000, TimeBounds.Status.SYNCHRONIZED,
                        Long.MAX_VALUE, Long.MAX_VALUE, "stress");
            }

            @Override
            public int periodMillis() {
                return 1000;
            }

            @Override
            public String description() {
                return "stress";
            }
        }, "stress", new VmClockWatch(VmClock.overPage(page)), "a test's page");
        served.refresh(false);
    }

    @Actor
    public void hypervisor() {
        SEQ.setOpaque(page, VmClockLayout.OFF_SEQ, 3);
        VarHandle.storeStoreFence(); // the driver's smp_wmb after the odd seq_count
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_MARKER, 2);
        page.set(ValueLayout.JAVA_LONG, VmClockLayout.OFF_FLAGS, VmClock.FLAG_DISRUPTION_IMMINENT);
        SEQ.setRelease(page, VmClockLayout.OFF_SEQ, 4); // smp_wmb, then the even seq_count
    }

    @Actor
    public void reader(II_Result r) {
        served.now(into);
        r.r1 = into.status().ordinal();
        r.r2 = into.disruptionExpected().ordinal();
    }
}
