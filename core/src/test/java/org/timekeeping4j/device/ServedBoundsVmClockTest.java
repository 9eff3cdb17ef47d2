package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * The served bounds watching a VMClock page (a file the test writes as a hypervisor would): a marker or generation
 * change makes the first read after it DISRUPTED, before any refresh, until the source has measured since; the
 * DISRUPTION_SOON / DISRUPTION_IMMINENT flags reach each read and {@code awaitDisruption}.
 */
class ServedBoundsVmClockTest {

    private static final long S = 1_000_000_000L;

    @TempDir
    Path dir;

    /** A source whose bound rests on a measurement at {@code basis} (MONOTONIC_RAW), set by the test. */
    private static final class Measured implements BoundSource {
        volatile long basis = Long.MIN_VALUE + 1;

        @Override
        public ServedBounds.Anchor sample() {
            long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
            long real = Clocks.nanos(ClockId.REALTIME);
            return new ServedBounds.Anchor(raw, real - raw, 10_000, 50_000, TimeBounds.Status.SYNCHRONIZED, 60 * S,
                    3600 * S, "measured").basedAt(basis);
        }

        @Override
        public int periodMillis() {
            return 1000;
        }

        @Override
        public String description() {
            return "measured";
        }
    }

    /** One hypervisor update: flags and marker, and the generation (present). */
    private static void update(VmClockPageWriter w, long flags, long marker, long generation) {
        w.begin();
        w.kind(0xff, 0, 0, flags | VmClock.FLAG_VM_GEN_COUNTER_PRESENT, marker);
        w.vmGeneration(generation);
        w.end();
    }

    private ServedBounds watching(Path file, BoundSource source) {
        StringBuilder note = new StringBuilder();
        VmClockWatch watch = VmClockWatch.open(file, note);
        assertThat(watch).as(note.toString()).isNotNull();
        assertThat(note.toString()).isEqualTo("watching the VMClock page " + file);
        return new ServedBounds(source, "test", watch, note.toString());
    }

    @Test
    void aMarkerChangeShouldMakeTheNextReadDisruptedUntilTheSourceMeasuredSince() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            update(w, 0, 1, 7);
            Measured source = new Measured();
            ServedBounds served = watching(file, source);
            TimeBounds b = new TimeBounds();
            served.refresh(false);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            assertThat(b.disruptionExpected()).isEqualTo(TimeBounds.Disruption.NONE);

            update(w, 0, 2, 7); // a loadvm: the marker moves; no refresh before the read
            assertThat(served.now(b).status()).as("the first read after the marker moved")
                    .isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(b.widthNanos()).isEqualTo(Long.MAX_VALUE);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);

            // The refresher sees it as a set: the source's bound still rests on a measurement from before.
            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW) - S;
            served.refresh(false);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(served.why()).contains("the VMClock page's disruption marker or VM generation moved")
                    .contains("until measured has measured since");
            served.refresh(false);
            assertThat(served.now(b).status()).as("no measurement since yet").isEqualTo(TimeBounds.Status.DISRUPTED);

            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW); // the source measured since
            served.refresh(false);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            assertThat(b.widthNanos()).isLessThan(1_000_000L);
        }
    }

    @Test
    void aGenerationChangeAloneShouldDisruptToo() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            update(w, 0, 1, 7);
            Measured source = new Measured();
            ServedBounds served = watching(file, source);
            TimeBounds b = new TimeBounds();
            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW);
            served.refresh(false);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            update(w, 0, 1, 8); // a restored snapshot: the generation moves, the marker not
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);
            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW);
            served.refresh(false); // sees the move: when it came is not known, so a measurement before this is old
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);
            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW);
            served.refresh(false);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        }
    }

    @Test
    void soonThenImminentShouldReachTheHolderAndTheWait() throws Exception {
        Path file = dir.resolve("page");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            update(w, 0, 1, 7);
            Measured source = new Measured();
            source.basis = Clocks.nanos(ClockId.MONOTONIC_RAW);
            ServedBounds served = watching(file, source);
            served.refresh(false);
            TimeBounds b = new TimeBounds();
            assertThat(served.awaitDisruption(TimeBounds.Disruption.NONE, Duration.ofMillis(30)))
                    .as("nothing expected: the timeout").isEqualTo(TimeBounds.Disruption.NONE);

            Future<TimeBounds.Disruption> soon = pool.submit(() ->
                    served.awaitDisruption(TimeBounds.Disruption.NONE, Duration.ofSeconds(30)));
            Thread.sleep(50);
            assertThat(soon.isDone()).isFalse();
            update(w, VmClock.FLAG_DISRUPTION_SOON, 1, 7);
            assertThat(soon.get(10, TimeUnit.SECONDS)).isEqualTo(TimeBounds.Disruption.SOON);
            assertThat(served.now(b).disruptionExpected()).isEqualTo(TimeBounds.Disruption.SOON);
            assertThat(b.status()).as("expected, not yet happened").isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            assertThat(b.toString()).contains("disruption SOON");

            Future<TimeBounds.Disruption> imminent = pool.submit(() ->
                    served.awaitDisruption(TimeBounds.Disruption.SOON, Duration.ofSeconds(30)));
            update(w, VmClock.FLAG_DISRUPTION_SOON | VmClock.FLAG_DISRUPTION_IMMINENT, 1, 7);
            assertThat(imminent.get(10, TimeUnit.SECONDS)).isEqualTo(TimeBounds.Disruption.IMMINENT);
            assertThat(served.now(b).disruptionExpected()).isEqualTo(TimeBounds.Disruption.IMMINENT);

            Future<TimeBounds.Disruption> after = pool.submit(() ->
                    served.awaitDisruption(TimeBounds.Disruption.IMMINENT, Duration.ofSeconds(30)));
            update(w, 0, 2, 7); // the migration: flags cleared, the marker moved
            assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo(TimeBounds.Disruption.NONE);
            assertThat(served.now(b).status()).isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(b.disruptionExpected()).isEqualTo(TimeBounds.Disruption.NONE);

            // A VmClock read of the same page says the same.
            try (VmClock clock = VmClock.open(file)) {
                update(w, VmClock.FLAG_DISRUPTION_IMMINENT, 2, 7);
                assertThat(clock.awaitDisruption(TimeBounds.Disruption.NONE, Duration.ofSeconds(5)))
                        .isEqualTo(TimeBounds.Disruption.IMMINENT);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withoutAPageNothingIsExpectedAndTheDiagnosticsSaySo() throws Exception {
        StringBuilder note = new StringBuilder();
        assertThat(VmClockWatch.open(dir.resolve("absent"), note)).isNull();
        assertThat(note.toString()).isEqualTo("no VMClock page at " + dir.resolve("absent"));
        Measured source = new Measured();
        ServedBounds served = new ServedBounds(source, "test", null, note.toString());
        served.refresh(false);
        TimeBounds b = served.now(new TimeBounds());
        assertThat(b.disruptionExpected()).isEqualTo(TimeBounds.Disruption.NONE);
        assertThat(served.report()).endsWith("; no VMClock page at " + dir.resolve("absent"));
        long t0 = System.nanoTime();
        assertThat(served.awaitDisruption(TimeBounds.Disruption.NONE, Duration.ofMillis(20)))
                .isEqualTo(TimeBounds.Disruption.NONE);
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(20_000_000L);
    }

    @Test
    void aPageThatNeverSettlesShouldMakeTheRefreshUnknownAndTheReadSayWhy() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            update(w, 0, 1, 7);
            Measured source = new Measured();
            ServedBounds served = watching(file, source);
            served.refresh(false);
            w.seq(w.seq() + 1); // a writer stuck mid-update
            served.refresh(false); // must not throw: at the first sample, it runs in a class initialiser
            assertThat(served.why()).contains("never settled");
            assertThat(served.anchor().status()).isEqualTo(TimeBounds.Status.UNKNOWN);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> served.now(new TimeBounds()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("never settled");
        }
    }

    @Test
    void aFileThatIsNoPageIsNotWatchedAndSaysWhy() throws Exception {
        Path file = dir.resolve("junk");
        java.nio.file.Files.write(file, new byte[4096]);
        StringBuilder note = new StringBuilder();
        assertThat(VmClockWatch.open(file, note)).isNull();
        assertThat(note.toString()).startsWith("the VMClock page is not watched: ").contains("magic");
    }
}
