package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.testing.BracketReader;
import org.timekeeping4j.testing.KernelClock;

/**
 * A leap second inserted by the kernel, as leap-a-day does it: the clock set to 23:59:50 UTC, STA_INS set
 * through adjtimex, and the midnight crossed. REALTIME repeats its last second (its exact reads step back by one
 * second, and 23:59:59 is read on both sides of the step), TAI and MONOTONIC stay continuous, the TAI offset grows
 * by one, the kernel passes through TIME_INS, TIME_OOP and TIME_WAIT, and every exact-mode read of REALTIME, TAI
 * and MONOTONIC lies inside its bracket of clock_gettime reads throughout. Sets the date of the kernel it runs
 * on, so it runs in a lab guest only (see {@link KernelClock#assumeLabGuest}); the clock is put back near the
 * time it found.
 */
@Tag("lab")
class LeapSecondExactTest {

    private static final long SEC = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long DAY = 86_400 * SEC;
    /** Seconds before midnight the clock is set to (leap-a-day uses 10). */
    private static final long LEAD_S = Long.getLong("tk4j.lab.leapLeadSeconds", 10);
    private static final long MIN_READS = 1000;
    private static final int REALTIME = ClockId.REALTIME.id();

    @Test
    void exactReadsShouldAgreeWithTheKernelAcrossAnInsertedLeapSecond() throws Exception {
        KernelClock.assumeLabGuest();
        KernelVdsoTest.assumeExactModePossible();
        long found = ClockGettimeStub.clockGettimeNanos(ClockId.REALTIME.id());
        long foundMono = ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id());
        long midnight = (Math.floorDiv(found, DAY) + 1) * DAY;
        // A clean state, TAI-UTC 37 s.
        KernelClock.clockAdjtime(REALTIME, KernelClock.ADJ_STATUS | KernelClock.ADJ_TAI, 0, 0, 0, 37);
        KernelClock.settime(REALTIME, midnight - LEAD_S * SEC);
        // setStatus sets maxerror 0 too: an unsynchronised clock (maxerror past 16 s) makes adjtimex answer
        // TIME_ERROR instead of the leap states.
        KernelClock.setStatus(KernelClock.STA_INS);
        int taiBefore = KernelClock.taiOffset();
        long realMinusMonoBefore = offset(ClockId.REALTIME);
        long taiMinusMonoBefore = offset(ClockId.TAI);

        Set<Integer> states = new TreeSet<>();
        // The main thread's REALTIME exact reads: the step back, and 23:59:59 read on both sides of it.
        long lastReal = Long.MIN_VALUE;
        long maxBack = 0;
        long backs = 0;
        boolean lastSecondBefore = false;
        boolean lastSecondAfter = false;
        long lastSecondStart = midnight - SEC;
        BracketReader reader = new BracketReader(Set.of(ClockId.REALTIME), ClockId.REALTIME, ClockId.TAI,
                ClockId.MONOTONIC);
        long endMono = ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id()) + (LEAD_S + 3) * SEC;
        try (reader) {
            while (ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id()) - endMono < 0) {
                states.add(KernelClock.state());
                for (int i = 0; i < 200; i++) {
                    long r = Clocks.nanos(ClockId.REALTIME);
                    if (lastReal != Long.MIN_VALUE && r < lastReal) {
                        backs++;
                        maxBack = Math.max(maxBack, lastReal - r);
                    }
                    if (r >= lastSecondStart && r < midnight) {
                        if (backs == 0) {
                            lastSecondBefore = true;
                        } else {
                            lastSecondAfter = true;
                        }
                    }
                    lastReal = r;
                }
                Thread.sleep(2); // pacing: batches of reads every 2 ms through the leap, until MONOTONIC's end
            }
        } finally {
            KernelClock.clockAdjtime(REALTIME, KernelClock.ADJ_STATUS, 0, 0, 0, 0);
            int taiAfter = KernelClock.taiOffset();
            long realMinusMonoAfter = offset(ClockId.REALTIME);
            long taiMinusMonoAfter = offset(ClockId.TAI);
            // Back to about the time found (the run's own duration added through MONOTONIC).
            KernelClock.settime(REALTIME, found + ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id()) - foundMono);
            String what = "states " + states + ", REALTIME-MONOTONIC moved " + (realMinusMonoAfter
                    - realMinusMonoBefore) + " ns, TAI-MONOTONIC moved " + (taiMinusMonoAfter - taiMinusMonoBefore)
                    + " ns, TAI-UTC " + taiBefore + " -> " + taiAfter + ", REALTIME stepped back " + backs
                    + " time(s), by " + maxBack + " ns; " + reader.reads.get() + " bracketed reads";
            System.out.println("LeapSecondExactTest: " + what);
            assertThat(states).as(what).contains(KernelClock.TIME_INS, KernelClock.TIME_OOP, KernelClock.TIME_WAIT);
            assertThat(taiAfter - taiBefore).as(what).isEqualTo(1);
            // REALTIME repeats one second: it is one second behind MONOTONIC afterwards; TAI is not moved.
            // (Each offset comes from one bracket of reads: good to its width, microseconds, not to the ns.)
            assertThat(realMinusMonoAfter - realMinusMonoBefore).as(what).isCloseTo(-SEC, within(MS));
            assertThat(taiMinusMonoAfter - taiMinusMonoBefore).as(what).isCloseTo(0L, within(MS));
            assertThat(backs).as(what).isEqualTo(1);
            assertThat(maxBack).as(what).isBetween(SEC / 2, SEC + SEC / 2);
            assertThat(lastSecondBefore && lastSecondAfter).as("23:59:59 read before and after the step; " + what)
                    .isTrue();
            assertThat(reader.reads.get()).as(what).isGreaterThanOrEqualTo(MIN_READS);
            assertThat(reader.outside.get()).as("reads outside their bracket (first: %s); %s",
                    reader.firstFailure(), what).isZero();
            assertThat(reader.backwards.get()).as("TAI or MONOTONIC going back (first: %s); %s",
                    reader.firstFailure(), what).isZero();
        }
    }

    /**
     * The clock's offset from MONOTONIC, from the narrowest of 50 brackets of MONOTONIC reads around one read of
     * it (good to that width, microseconds even when the emulator is preempted inside some brackets).
     */
    private static long offset(ClockId clock) {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 50; i++) {
            long m0 = ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id());
            long c = ClockGettimeStub.clockGettimeNanos(clock.id());
            long m1 = ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC.id());
            if (m1 - m0 < best) {
                best = m1 - m0;
                offset = c - (m0 + (m1 - m0) / 2);
            }
        }
        return offset;
    }
}
