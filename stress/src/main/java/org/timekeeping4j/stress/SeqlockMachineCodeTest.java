package org.timekeeping4j.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.timekeeper.ConvertedNanos;
import org.timekeeping4j.timekeeper.Timekeeper;

/**
 * The machine-code read (the seqlock stub over the timekeeper's page, where the selected counter has
 * one: x86_64) against the writer, on the real counter. The writer flips the frequency by +/-100 ppm and
 * republishes; the reader reads MONOTONIC through the stub between two ordered counter reads c1 and c2, and
 * the value must lie between the history's conversions of c1 and c2 (r1 = 1). A torn read mixes one
 * state's mult' (mult * 2^(64 - shift)) with another's constant k: with a counter hours past 0 that is
 * milliseconds off, far outside the bracket (r1 = 0). r2 says which path was exercised (1: machine code).
 * The history holds 4096 states; a reader held up (preempted) while the writers of every running instance
 * publish more than that cannot be judged (r1 = 2: extrapolating from the oldest state would not be exact).
 *
 * <p>One timekeeper for all the test's instances (static): each hardware timekeeper has a native page for
 * the life of the process, and jcstress creates states by the hundred thousand. The instances' writers then
 * all write the same timekeeper, which only adds interleavings.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the machine-code read returned a whole state's value")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "no stub for this counter: the Java read, whole")
@Outcome(id = {"2, 1", "2, 0"}, expect = ACCEPTABLE_INTERESTING,
        desc = "inconclusive: the reader stalled until c1 predated the history (4096 updates)")
@Outcome(expect = FORBIDDEN, desc = "torn read: a value outside the bracket of its counter reads")
@State
public class SeqlockMachineCodeTest {
    private static final Clocksource COUNTER = CounterSelector.selected().clocksource();
    private static final NtpAdjuster NTP = new NtpAdjuster();
    private static final Timekeeper TK = Timekeeper.builder(COUNTER).adjustment(NTP)
            .monotonicNanos(1_000_000_000L).historySize(4096).build();
    private static final int MACHINE_CODE = TK.hasPage() ? 1 : 0;
    private static volatile boolean up;

    @Actor
    public void writer() {
        boolean u = up = !up;
        NTP.setFrequencyPpb(u ? 100_000 : -100_000);
        TK.update();
    }

    private final ConvertedNanos lo = new ConvertedNanos();
    private final ConvertedNanos hi = new ConvertedNanos();

    @Actor
    public void reader(II_Result r) {
        long c1 = COUNTER.read();
        long v = TK.monotonicNanos();
        long c2 = COUNTER.read();
        if (!TK.convert(c1, ClockId.MONOTONIC, lo) | !TK.convert(c2, ClockId.MONOTONIC, hi)) {
            r.r1 = 2; // the reader was held up while the writers pushed c1's state out of the history
        } else {
            r.r1 = lo.nanos() <= v && v <= hi.nanos() ? 1 : 0;
        }
        r.r2 = MACHINE_CODE;
    }
}
