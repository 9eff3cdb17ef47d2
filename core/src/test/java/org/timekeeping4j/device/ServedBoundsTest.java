package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.disruption.Disruptions;

/**
 * The served bounds: a source's anchor widened by its growth over the anchor's age, read at counter speed, never
 * narrower than the source itself at a later instant, unbounded when the anchor is void, stale or stepped across.
 */
class ServedBoundsTest {

    private static final long S = 1_000_000_000L;
    /** A chronyd endpoint where nothing listens (the port is refused at once). */
    private static final Chronyd NOBODY = Chronyd.udp("127.0.0.1:1");

    @TempDir
    Path dir;

    /** A source whose next anchor the test sets. */
    private static class Scripted implements BoundSource {
        final AtomicReference<ServedBounds.Anchor> next = new AtomicReference<>();

        @Override
        public ServedBounds.Anchor sample() {
            return next.get();
        }

        @Override
        public int periodMillis() {
            return 50;
        }

        @Override
        public String description() {
            return "scripted";
        }
    }

    /** An anchor at MONOTONIC_RAW {@code agoNanos} ago with the clocks' offset now. */
    private static ServedBounds.Anchor anchor(long agoNanos, long bound, long driftPpb, TimeBounds.Status status,
                                              long fresh, long voidAfter) {
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
        long real = Clocks.nanos(ClockId.REALTIME);
        return new ServedBounds.Anchor(raw - agoNanos, real - raw, bound, driftPpb, status, fresh, voidAfter, "t");
    }

    @Test
    void theBoundShouldGrowByTheDriftOverTheAnchorsAgeAndHoldTheStatusWhileFresh() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        long before = KernelClocks.nanos(ClockId.REALTIME); // before the anchor: the age counts from it
        source.next.set(anchor(2 * S, 10_000, 50_000, TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S));
        served.refresh(false);
        long read = KernelClocks.nanos(ClockId.REALTIME);
        TimeBounds b = served.now(new TimeBounds());
        long after = KernelClocks.nanos(ClockId.REALTIME);
        assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        assertThat(b.nanos()).isBetween(read, after);
        // 2 s at 50 ppm: 100 us more than the 10 us stated; the age is reckoned from REALTIME, never short (up to
        // 11% long: REALTIME may run that much slower), plus the time the test took.
        long half = (b.latestNanos() - b.earliestNanos()) / 2;
        long longest = (long) ((2 * S + after - before) * ServedBounds.AGE_PER_REALTIME) + 2;
        assertThat(half).isBetween(110_000L, 10_000L + ServedBounds.grow(longest, 50_000) + 2);
        assertThat(b.latestNanos() - b.nanos()).isEqualTo(b.nanos() - b.earliestNanos());
        assertThat(b.source()).isSameAs(served);
    }

    @Test
    void aStaleAnchorShouldFreeRunAndAVoidOneShouldBoundNothing() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        source.next.set(anchor(10 * S, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 5 * S, 3600 * S));
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.FREE_RUNNING);
        assertThat(b.widthNanos()).isGreaterThanOrEqualTo(2 * (10_000 + 150_000));

        source.next.set(anchor(10 * S, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 5 * S, 9 * S));
        served.refresh(false);
        served.now(b);
        assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
        assertThat(b.earliestNanos()).isEqualTo(Long.MIN_VALUE);
        assertThat(b.latestNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void realtimeBehindTheSampleShouldReadAsDisrupted() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
        long real = Clocks.nanos(ClockId.REALTIME);
        // REALTIME read 1 s later than now at a sample 10 ms ago: it stepped back since.
        source.next.set(new ServedBounds.Anchor(raw - 10_000_000L, real - raw + S, 10_000, 15_000,
                TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S, "t"));
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.DISRUPTED);
        assertThat(b.widthNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aStepShouldDisruptUntilTheSourceHasMeasuredSince() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        source.next.set(anchor(0, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S));
        served.refresh(true); // what the refresher does when REALTIME was set
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.DISRUPTED);
        assertThat(served.why()).contains("REALTIME was set");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            source.next.set(anchor(0, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S));
            served.refresh(false);
            return served.now(b).status() == TimeBounds.Status.SYNCHRONIZED;
        });
        assertThat(b.widthNanos()).isLessThan(1_000_000);
    }

    @Test
    void aDisruptionSeenAfterTheSampleShouldDisruptForTheSettleAndThenServeAFreshSample() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        source.next.set(anchor(0, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S));
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);

        Disruptions.seen(Clocks.ticks()); // what a restore's rediscovery, or a VMClock page that moved, notes
        assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED); // before the refresher woke
        assertThat(b.widthNanos()).isEqualTo(Long.MAX_VALUE);
        long seenAt = Clocks.nanos(ClockId.MONOTONIC_RAW);
        served.refresh(false); // the refresher's first look after it
        assertThat(served.why()).contains("restored from a checkpoint");
        long[] firstServedAt = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            source.next.set(anchor(0, 10_000, 15_000, TimeBounds.Status.SYNCHRONIZED, 60 * S, 3600 * S));
            long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
            served.refresh(false);
            firstServedAt[0] = raw;
            return served.now(b).status() != TimeBounds.Status.DISRUPTED;
        });
        assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        assertThat(b.widthNanos()).isLessThan(1_000_000);
        assertThat(firstServedAt[0] - seenAt).isGreaterThanOrEqualTo(ServedBounds.RESTORE_SETTLE_NANOS);
    }

    @Test
    void aDisruptionShouldShowEvenWhereTheSourceBoundsNothing() {
        Scripted source = new Scripted();
        ServedBounds served = new ServedBounds(source);
        source.next.set(ServedBounds.Anchor.unbounded(Clocks.nanos(ClockId.MONOTONIC_RAW),
                TimeBounds.Status.UNKNOWN, "unsynchronised"));
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
        Disruptions.seen(Clocks.ticks());
        assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            served.refresh(false);
            return served.now(b).status() != TimeBounds.Status.DISRUPTED;
        });
        assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
    }

    @Test
    void theLeadShouldBeRealtimeMinusMonotonicWhereExactModeServes() {
        if (!org.timekeeping4j.vdso.KernelVdso.ENABLED) {
            assertThat(org.timekeeping4j.vdso.KernelVdso.realtimeLead()).isEqualTo(
                    org.timekeeping4j.vdso.KernelVdso.NO_LEAD);
            return;
        }
        long first = org.timekeeping4j.vdso.KernelVdso.realtimeLead();
        for (int i = 0; i < 10_000; i++) {
            long monoBefore = KernelClocks.nanos(ClockId.MONOTONIC);
            long real = KernelClocks.nanos(ClockId.REALTIME);
            long monoAfter = KernelClocks.nanos(ClockId.MONOTONIC);
            long lead = org.timekeeping4j.vdso.KernelVdso.realtimeLead();
            // REALTIME read between the MONOTONIC reads: its lead lies between what each pairing gives.
            assertThat(lead).as("read %d", i).isBetween(real - monoAfter, real - monoBefore).isEqualTo(first);
        }
    }

    @Test
    void aSourceThatFailsShouldBoundNothingAndSayWhy() {
        ServedBounds served = new ServedBounds(new Scripted() {
            @Override
            public ServedBounds.Anchor sample() {
                throw new IllegalStateException("the segment never settles");
            }
        });
        assertThat(served.now(new TimeBounds()).status()).as("before any sample").isEqualTo(TimeBounds.Status.UNKNOWN);
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
        assertThat(b.widthNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(served.why()).isEqualTo("scripted: the segment never settles");
    }

    /** Served from a ClockBound segment: never narrower than the segment's own bound read just before it. */
    @Test
    void aClockBoundSegmentServedShouldNeverBeNarrowerThanTheSegmentItself() throws Exception {
        Path file = dir.resolve("shm0");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound segment = ClockBound.open(file)) {
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            w.write(mono - S, mono + 3600 * S, 20_000, 0, 15_000, 1);
            ServedBounds served = new ServedBounds(new ClockBoundSource(segment));
            served.refresh(false);
            TimeBounds own = new TimeBounds();
            TimeBounds b = new TimeBounds();
            int checked = 0;
            for (int i = 0; i < 100_000; i++) {
                segment.now(own);
                served.now(b);
                // FREE_RUNNING where two refresh periods passed since the last refresh (an emulated JVM is slow).
                assertThat(b.status()).isIn(TimeBounds.Status.SYNCHRONIZED, TimeBounds.Status.FREE_RUNNING);
                assertThat(b.widthNanos()).as("read %d", i).isGreaterThanOrEqualTo(own.widthNanos());
                // ...and no wider than the segment's bound grown over a refresh period (the test's reads aside).
                assertThat(b.widthNanos()).isLessThan(own.widthNanos() + 2 * ServedBounds.grow(S, 15_000) + 2_000);
                checked++;
                if (i % 1_000 == 0) {
                    served.refresh(false);
                }
            }
            assertThat(checked).isEqualTo(100_000);
            // The segment's own status at the last refresh: FREE_RUNNING 5 s after its as_of (the protocol), which
            // a slow (emulated) JVM reaches within the loop; the words are the segment's either way.
            assertThat(served.why()).matches("clockbound " + java.util.regex.Pattern.quote(file.toString())
                    + ": (SYNCHRONIZED|FREE_RUNNING), bound \\d+ ns, drift 15000 ppb");
        }
    }

    @Test
    void aReadShouldAllocateNothing() throws Exception {
        Path file = dir.resolve("alloc");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound segment = ClockBound.open(file)) {
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            w.write(mono, mono + 3600 * S, 5_000, 0, 50_000, 1);
            ServedBounds served = new ServedBounds(new ClockBoundSource(segment));
            served.refresh(false);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            TimeBounds b = new TimeBounds();
            long sink = 0;
            String odd = "none";
            for (int i = 0; i < 200_000; i++) {
                boolean ok = served.now(b).widthNanos() < Long.MAX_VALUE; // bounded (FREE_RUNNING once stale)
                sink += ok ? 1 : 0;
                if (!ok && odd.equals("none")) {
                    odd = i + " " + b;
                }
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 2_000_000; i++) {
                sink += served.now(b).widthNanos() < Long.MAX_VALUE ? 1 : 0;
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).as("bounded reads, the first unbounded %s", odd).isEqualTo(2_200_000);
            assertThat(allocated).as("bytes allocated by 2,000,000 served reads").isLessThan(16_384);
        }
    }

    @Test
    void theSourceShouldBeChosenAsConfigured() throws Exception {
        Path absent = dir.resolve("absent");
        StringBuilder why = new StringBuilder();
        assertThat(ServedBounds.chosen("auto", absent, NOBODY, null, why).description()).isEqualTo("adjtimex");
        assertThat(why.toString()).startsWith("auto: no ClockBound segment at " + absent
                + ", chronyd did not answer on 127.0.0.1:1 (");
        why.setLength(0);
        assertThat(ServedBounds.chosen("adjtimex", absent, NOBODY, null, why).description()).isEqualTo("adjtimex");
        assertThat(why.toString()).isEqualTo("timekeeping4j.bounds=adjtimex");
        assertThat(ServedBounds.chosen("chrony", absent, NOBODY, null, new StringBuilder()).description())
                .isEqualTo("chronyd 127.0.0.1:1");
        assertThatThrownBy(() -> ServedBounds.chosen("clockbound", absent, NOBODY, null, new StringBuilder()))
                .isInstanceOf(DeviceException.class).hasMessageContaining(absent.toString());
        Path file = dir.resolve("shm0");
        try (ShmWriter w = ShmWriter.valid(file)) {
            why.setLength(0);
            assertThat(ServedBounds.chosen("auto", file, NOBODY, null, why).description()).isEqualTo("clockbound " + file);
            assertThat(why.toString()).isEqualTo("auto: the ClockBound segment " + file + " exists");
        }
        assertThat(Configuration.read(java.util.Map.of(Configuration.BOUNDS, " ClockBound ")).bounds())
                .isEqualTo("clockbound");
        assertThat(Configuration.read(java.util.Map.of(Configuration.BOUNDS, "ntp")).boundsError())
                .isEqualTo("unknown timekeeping4j.bounds=ntp: valid values are auto (a ClockBound segment, else"
                        + " chronyd, else VMClock's time, else adjtimex), clockbound, chrony, vmclock and adjtimex");
    }

    @Test
    void theDiagnosticsShouldSayWhatTheProcesssBoundedClockServesFromOnceAskedFor() throws Exception {
        BoundedClock system = BoundedClock.system();
        String line = Clocks.diagnostics().bounds();
        // "<source> (<why chosen>): <what it said last>", the source the same as the clock's own description.
        assertThat(line).startsWith(system.description().substring(0, system.description().indexOf(", served")) + " (")
                .matches("(adjtimex|chronyd \\S+|clockbound \\S+) \\((auto: .+|timekeeping4j\\.bounds=\\w+)\\): .+");
    }

    @Test
    void growthShouldRoundUpAndStayExactForLongAges() {
        assertThat(ServedBounds.grow(0, 15_000)).isZero();
        assertThat(ServedBounds.grow(1, 15_000)).isEqualTo(1);
        assertThat(ServedBounds.grow(S, 15_000)).isEqualTo(15_000);
        assertThat(ServedBounds.grow(100L * 365 * 86_400 * S, 999_999_999L)).isPositive();
        // The read's double version over elapsed REALTIME is never below the exact growth over the longest age
        // that elapsed time can be (elapsed x AGE_PER_REALTIME, rounded up), and at most 3 ns above it.
        java.util.SplittableRandom r = new java.util.SplittableRandom(45);
        for (int i = 0; i < 1_000_000; i++) {
            long elapsed = r.nextLong(0, 3_600 * S);
            long ppb = r.nextLong(0, 1_000_000);
            long longestAge = (long) Math.ceil(elapsed * ServedBounds.AGE_PER_REALTIME);
            long exact = ServedBounds.grow(longestAge, ppb);
            assertThat(ServedBounds.grown(elapsed, ppb * 1e-9 * ServedBounds.AGE_PER_REALTIME))
                    .as("elapsed %d at %d ppb", elapsed, ppb).isBetween(exact, exact + 3);
        }
    }
}
