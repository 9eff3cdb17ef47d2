package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.SyncStatus.ClockState;
import org.timekeeping4j.testing.KernelClock;

/**
 * Leap seconds the way the kernel's leap-a-day selftest makes them: the guest's REALTIME set to 23:59:50 UTC, then
 * STA_INS (or STA_DEL) through adjtimex, and the day's end watched: REALTIME repeats (skips) its last second, TAI and
 * MONOTONIC run on without a step, the TAI offset changes by one, SyncStatus reports the kernel's states, and no
 * read path of the library sees TAI, MONOTONIC or BOOTTIME go backwards.
 */
@Tag("lab")
class LeapSecondLabTest {

    static final long S = KernelClock.NANOS;
    /** The midnight the leaps happen at: 2027-01-01T00:00:00Z (any UTC midnight does). */
    static final long MIDNIGHT = Instant.parse("2027-01-01T00:00:00Z").getEpochSecond() * S;
    static final int TAI_BEFORE = 37;
    static final List<ClockId> CONTINUOUS = List.of(ClockId.TAI, ClockId.MONOTONIC, ClockId.BOOTTIME);
    /**
     * Distances a leap must not change: each continuous clock through each path against the kernel's MONOTONIC_RAW
     * (and MONOTONIC through the kernel against MONOTONIC_RAW).
     */
    static final List<String> OFFSETS = new ArrayList<>();

    /** A bound reader per clock, made by the first thread that reads it. */
    static final Map<ClockId, org.timekeeping4j.ClockReader> READERS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The library's read paths, each checked on every continuous clock. */
    static final Map<String, ToLongFunction<ClockId>> PATHS = new LinkedHashMap<>();

    static {
        PATHS.put("Clocks.nanos", Clocks::nanos);
        PATHS.put("ClockReader", c -> READERS.computeIfAbsent(c, Clocks::reader).nanos());
        PATHS.put("KernelClocks.nanos", KernelClocks::nanos);
        PATHS.put("KernelClocks.syscallNanos", KernelClocks::syscallNanos);
    }

    @BeforeAll
    static void guest() {
        KernelClock.assumeLabGuest();
    }

    @AfterEach
    void clear() {
        KernelClock.setStatus(0);
    }

    @Test
    void anInsertedLeapSecondShouldRepeatRealtimesLastSecondAndLeaveTaiAndMonotonicContinuous() throws Exception {
        Observation o = leap(KernelClock.STA_INS);
        assertThat(o.states).as("SyncStatus states seen").containsSubsequence(
                ClockState.INSERT_LEAP, ClockState.LEAP_IN_PROGRESS, ClockState.LEAP_OCCURRED);
        assertThat(o.taiOffsets).as("TAI offsets seen (SyncStatus)").containsExactly(TAI_BEFORE, TAI_BEFORE + 1);
        assertThat(o.realtimeSteps).as("REALTIME steps seen (ns): one second back, once").hasSize(1);
        assertThat(o.realtimeSteps.getFirst()).isBetween(-S - S / 10, -S + S / 10);
        assertThat(o.realtimeMinusTaiChange).as("REALTIME - TAI change across the leap, ns")
                .isBetween(-S - o.bracket, -S + o.bracket);
        o.assertContinuous();
    }

    @Test
    void aDeletedLeapSecondShouldSkipRealtimesLastSecondAndLeaveTaiAndMonotonicContinuous() throws Exception {
        Observation o = leap(KernelClock.STA_DEL);
        assertThat(o.states).as("SyncStatus states seen").containsSubsequence(
                ClockState.DELETE_LEAP, ClockState.LEAP_OCCURRED).doesNotContain(ClockState.LEAP_IN_PROGRESS);
        assertThat(o.taiOffsets).as("TAI offsets seen (SyncStatus)").containsExactly(TAI_BEFORE, TAI_BEFORE - 1);
        assertThat(o.realtimeSteps).as("REALTIME steps seen (ns): one second forward, once").hasSize(1);
        assertThat(o.realtimeSteps.getFirst()).isBetween(S - S / 10, S + S / 10);
        assertThat(o.realtimeMinusTaiChange).as("REALTIME - TAI change across the leap, ns")
                .isBetween(S - o.bracket, S + o.bracket);
        o.assertContinuous();
    }

    /** What one leap looked like from user space. */
    static final class Observation {
        final List<ClockState> states = new ArrayList<>();
        final List<Integer> taiOffsets = new ArrayList<>();
        final List<Long> realtimeSteps = new ArrayList<>();
        long realtimeMinusTaiChange;
        long bracket;
        long[][] offsetsBefore;
        long[][] offsetsAfter;
        final List<Checker> checkers = new ArrayList<>();

        void assertContinuous() {
            for (Checker c : checkers) {
                assertThat(c.reads).as("%s reads across the leap", c.name).isGreaterThan(100);
                assertThat(c.firstRead).as("%s read before the leap", c.name).isTrue();
                assertThat(c.lastRead).as("%s read after the leap", c.name).isTrue();
                assertThat(c.violations).as("%s: reads that went backwards (first: %d ns)", c.name, c.firstDelta)
                        .isZero();
            }
            // No step forward either: TAI and BOOTTIME keep their distance to MONOTONIC, MONOTONIC to MONOTONIC_RAW.
            for (int i = 0; i < OFFSETS.size(); i++) {
                assertThat(offsetsAfter[i][0] - offsetsBefore[i][0])
                        .as("change of %s - kernel CLOCK_MONOTONIC_RAW across the leap, ns", OFFSETS.get(i))
                        .isBetween(-offsetsAfter[i][1] - offsetsBefore[i][1] - 1_000_000L,
                                offsetsAfter[i][1] + offsetsBefore[i][1] + 1_000_000L);
            }
        }
    }

    /** One thread reading one clock through one path back to back, counting reads that went backwards. */
    static final class Checker extends Thread {
        final String name;
        final ToLongFunction<ClockId> path;
        final ClockId clock;
        final AtomicBoolean stop;
        final long leapAtMonotonic;
        long reads;
        long violations;
        long firstDelta;
        boolean firstRead;
        boolean lastRead;

        Checker(String path, ToLongFunction<ClockId> read, ClockId clock, AtomicBoolean stop, long leapAtMonotonic) {
            super("leap " + path + " " + clock);
            this.name = path + " " + clock.kernelName();
            this.path = read;
            this.clock = clock;
            this.stop = stop;
            this.leapAtMonotonic = leapAtMonotonic;
        }

        @Override
        public void run() {
            long last = path.applyAsLong(clock);
            while (!stop.get()) {
                long mono = KernelClock.gettime(ClockId.MONOTONIC.id());
                firstRead |= mono < leapAtMonotonic - S / 2;
                lastRead |= mono > leapAtMonotonic + S / 2;
                for (int i = 0; i < 64; i++) { // back to back, as the selftests' inconsistency-check
                    long v = path.applyAsLong(clock);
                    reads++;
                    if (v < last && violations++ == 0) {
                        firstDelta = v - last;
                    }
                    last = v;
                }
            }
        }
    }

    /**
     * REALTIME set to 23:59:50 before {@link #MIDNIGHT} with the TAI offset at 37, then the leap flag: watched from
     * 3 s before midnight to 2 s after with a checker per (path, clock), SyncStatus polled meanwhile.
     */
    static Observation leap(int flag) throws Exception {
        Observation o = new Observation();
        for (ToLongFunction<ClockId> path : PATHS.values()) { // first reads (class set-up) before the watch
            CONTINUOUS.forEach(path::applyAsLong);
        }
        KernelClock.awaitTimeOk();
        KernelClock.setTaiOffset(TAI_BEFORE);
        KernelClock.settime(ClockId.REALTIME.id(), MIDNIGHT - 10 * S); // clears the NTP state: the flag comes after
        long leapAtMonotonic = KernelClock.gettime(ClockId.MONOTONIC.id()) + 10 * S;
        KernelClock.setStatus(flag);
        long[] before = offset(ClockId.REALTIME, ClockId.TAI);
        o.offsetsBefore = offsets();
        AtomicBoolean stop = new AtomicBoolean();
        // REALTIME's steps, as changes of REALTIME - MONOTONIC between polls (a late wake-up is no step).
        long lastRealtimeOffset = KernelClock.gettime(ClockId.REALTIME.id())
                - KernelClock.gettime(ClockId.MONOTONIC.id());
        long startCheckers = leapAtMonotonic - 3 * S;
        while (KernelClock.gettime(ClockId.MONOTONIC.id()) < leapAtMonotonic + 2 * S) {
            long mono = KernelClock.gettime(ClockId.MONOTONIC.id());
            if (o.checkers.isEmpty() && mono >= startCheckers) {
                for (var p : PATHS.entrySet()) {
                    for (ClockId c : CONTINUOUS) {
                        Checker k = new Checker(p.getKey(), p.getValue(), c, stop, leapAtMonotonic);
                        o.checkers.add(k);
                        k.start();
                    }
                }
            }
            SyncStatus s = SyncStatus.read();
            assertThat(s.isAvailable()).as("adjtimex in the guest").isTrue();
            if (o.states.isEmpty() || o.states.getLast() != s.state()) {
                o.states.add(s.state());
            }
            if (o.taiOffsets.isEmpty() || o.taiOffsets.getLast() != s.taiOffsetSeconds()) {
                o.taiOffsets.add(s.taiOffsetSeconds());
            }
            long m0 = KernelClock.gettime(ClockId.MONOTONIC.id());
            long rt = KernelClock.gettime(ClockId.REALTIME.id());
            long m1 = KernelClock.gettime(ClockId.MONOTONIC.id());
            long realtimeOffset = rt - (m0 + (m1 - m0) / 2);
            if (Math.abs(realtimeOffset - lastRealtimeOffset) > S / 2) {
                o.realtimeSteps.add(realtimeOffset - lastRealtimeOffset);
            }
            lastRealtimeOffset = realtimeOffset;
            Thread.sleep(20); // pacing: the kernel's state sampled every 20 ms through the leap, until MONOTONIC's end
        }
        stop.set(true);
        for (Checker k : o.checkers) {
            k.join();
        }
        long[] after = offset(ClockId.REALTIME, ClockId.TAI);
        o.offsetsAfter = offsets();
        o.realtimeMinusTaiChange = after[0] - before[0];
        o.bracket = after[1] + before[1] + 1_000_000;
        return o;
    }

    /** a - b from the tightest of five bracketed reads (b, a, b), and that bracket's width. */
    static long[] offset(ClockId a, ClockId b) {
        return offset(c -> KernelClock.gettime(c.id()), a, b);
    }

    /** a read through {@code path} - b read from the kernel, as {@link #offset(ClockId, ClockId)}. */
    static long[] offset(ToLongFunction<ClockId> path, ClockId a, ClockId b) {
        long best = Long.MAX_VALUE;
        long diff = 0;
        for (int i = 0; i < 5; i++) {
            long t0 = KernelClock.gettime(b.id());
            long r = path.applyAsLong(a);
            long t1 = KernelClock.gettime(b.id());
            if (t1 - t0 < best) {
                best = t1 - t0;
                diff = r - (t0 + (t1 - t0) / 2);
            }
        }
        return new long[] {diff, best};
    }

    static long[][] offsets() {
        List<long[]> r = new ArrayList<>();
        OFFSETS.clear();
        for (var p : PATHS.entrySet()) {
            for (ClockId c : CONTINUOUS) {
                OFFSETS.add(p.getKey() + " " + c.kernelName());
                r.add(offset(p.getValue(), c, ClockId.MONOTONIC_RAW));
            }
        }
        return r.toArray(long[][]::new);
    }
}
