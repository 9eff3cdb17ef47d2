package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.KernelVdsoTest;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.VdsoLayout;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * The public API in exact mode (the default here): every counter-backed clock, read through Clocks.nanos and
 * the bound readers, lies inside its bracket of clock_gettime reads (10^7 reads per clock, 0 ns outside);
 * snapshots and deferred conversions give the kernel's own values; nothing allocates.
 */
class ExactClocksTest {

    private static final int READS = Integer.getInteger("tk4j.exact.reads", 10_000_000);

    @Test
    void theCounterBackedClocksShouldBeServedExactlyFromTheFirstCall() {
        KernelVdsoTest.assumeExactModePossible();
        assertThat(Clocks.awaitExactMode(java.time.Duration.ZERO)).isTrue();
        Diagnostics d = Clocks.diagnostics();
        Map<ClockId, Diagnostics.Serving> sources = d.clocks();
        for (CounterClock c : CounterClock.values()) {
            assertThat(sources.get(c.clock()).fromCounter()).isTrue();
            assertThat(sources.get(c.clock()).why()).startsWith("exact");
        }
        assertThat(sources.get(ClockId.MONOTONIC_COARSE).fromCounter()).isFalse();
        assertThat(d.stage()).isEqualTo(Diagnostics.Stage.EXACT);
        assertThat(d.ticks().counterCycles()).isTrue();
        assertThat(d.vdsoData().serves()).isTrue();
        assertThat(d.vdsoData().convertsCounter()).isTrue();
        assertThat(d.vdsoData().rawMult()).isEqualTo(KernelVdso.fields(VdsoLayout.CS_RAW).mult());
    }

    @Test
    void everyReadShouldLieInsideItsKernelBracket() {
        KernelVdsoTest.assumeExactModePossible();
        for (CounterClock vc : CounterClock.values()) {
            ClockId c = vc.clock();
            ClockReader reader = Clocks.reader(c);
            long outside = 0;
            String first = null;
            for (int i = 0; i < READS; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(c.id());
                // The public read, the bound reader, and the descriptor-driven path a newly added clock takes.
                long v = i % 3 == 0 ? Clocks.nanos(c) : i % 3 == 1 ? reader.nanos() : org.timekeeping4j.serving.FastPath.counterNanos(vc);
                long k1 = ClockGettimeStub.clockGettimeNanos(c.id());
                if (v - k0 < 0 || k1 - v < 0) {
                    if (outside++ == 0) {
                        first = k0 + " <= " + v + " <= " + k1;
                    }
                }
            }
            assertThat(outside).as("%s: %d reads, first outside: %s", c, READS, first).isZero();
        }
    }

    @Test
    void aSnapshotShouldBeTheKernelsOwnValuesAtItsCounterRead() {
        KernelVdsoTest.assumeExactModePossible();
        Snapshot s = new Snapshot();
        VdsoNanos conv = new VdsoNanos();
        int exact = 0;
        int same = 0;
        for (int i = 0; i < 100_000; i++) {
            for (CounterClock vc : CounterClock.values()) {
                long k0 = KernelClocks.nanos(vc.clock());
                long r0 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
                Clocks.snapshot(vc.clock(), s);
                long k1 = KernelClocks.nanos(vc.clock());
                long r1 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
                assertThat(s.isFromCounter()).isTrue();
                if (!s.isExtrapolated()) {
                    exact++;
                    assertThat(s.nanos()).as("%s snapshot", vc).isBetween(k0, k1);
                    assertThat(s.rawNanos()).isBetween(r0, r1);
                    // The deferred conversion of the same counter value with the same kernel state gives the
                    // same nanoseconds (a kernel update in between may round it differently: not compared).
                    assertThat(KernelVdso.convert(s.ticks(), vc, conv)).isTrue();
                    if (conv.cycleLast() == s.capture.cycleLast()) {
                        assertThat(conv.nanos()).isEqualTo(s.nanos());
                        same++;
                    }
                }
            }
        }
        // A kernel update between a snapshot's counter read and its conversion is rare (ns out of every tick).
        assertThat(exact).isGreaterThan(490_000);
        assertThat(same).isGreaterThan(490_000);
    }

    @Test
    void anUnorderedReadShouldNeverGoBackOnOneThread() {
        KernelVdsoTest.assumeExactModePossible();
        for (CounterClock vc : CounterClock.values()) {
            long last = Clocks.nanosUnordered(vc.clock());
            long back = 0;
            for (int i = 0; i < 1_000_000; i++) {
                long v = Clocks.nanosUnordered(vc.clock());
                if (v - last < 0 && vc != CounterClock.REALTIME && vc != CounterClock.TAI) {
                    back++;
                }
                last = v;
            }
            assertThat(back).as(vc.toString()).isZero();
        }
    }

    @Test
    void readsAndSnapshotsShouldAllocateNothing() {
        KernelVdsoTest.assumeExactModePossible();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Snapshot s = new Snapshot();
        long sink = 0;
        for (int round = 0; round < 2; round++) { // the first round warms up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 500_000; i++) {
                sink += Clocks.nanos(ClockId.MONOTONIC) + Clocks.nanos(ClockId.REALTIME)
                        + Clocks.nanos(ClockId.MONOTONIC_RAW) + Clocks.nanosUnordered(ClockId.BOOTTIME);
                Clocks.snapshot(ClockId.TAI, s);
                sink += s.nanos() + Clocks.ticksToNanos(Clocks.ticks(), ClockId.REALTIME);
            }
            if (round == 1) {
                assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(16_384);
            }
        }
        assertThat(sink).isNotZero();
    }

    @Test
    void eventsShouldExportToTheKernelsValuesAndSayWhenTheyAreExtrapolated() throws Exception {
        KernelVdsoTest.assumeExactModePossible();
        EventRecorder events = new EventRecorder(4);
        int exact = 0;
        for (int i = 0; i < 1000; i++) {
            long k0 = KernelClocks.nanos(ClockId.REALTIME);
            events.record(i);
            long k1 = KernelClocks.nanos(ClockId.REALTIME);
            long[] got = new long[2];
            events.export(ClockId.REALTIME, (nanos, payload, extrapolated) -> {
                got[0] = nanos; // the newest event comes last
                got[1] = extrapolated ? 0 : 1;
            });
            // An unordered tick may run a little ahead of the kernel read before it (the CLI's ticks path allows 100 ns).
            assertThat(got[0]).isBetween(k0 - 100, k1 + 100);
            exact += (int) got[1];
        }
        assertThat(exact).as("exports in the kernel's current update window").isGreaterThan(900);
        // An event older than the parameter history (60 s) is extrapolated, and says so.
        events.record(Clocks.ticks() - 10_000_000_000_000L, 7); // an hour ago or more on a counter of 3 GHz or less
        boolean[] flagged = {true};
        events.export(ClockId.MONOTONIC, (nanos, payload, extrapolated) -> {
            if (payload == 7) {
                flagged[0] = extrapolated;
            }
        });
        assertThat(flagged[0]).isTrue();
    }
}
