package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.SyncStatuses;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.TimexReading;

/** ClockBound v2 segments written by the test into real files. */
class ClockBoundTest {

    private static final long S = 1_000_000_000L;
    private static final Path P = Path.of("/shm");

    @TempDir
    Path dir;

    private static TimeBounds snapshot(long asOf, long voidAfter, long bound, long drift, int status) {
        TimeBounds b = new TimeBounds();
        b.asOfSec = asOf / S;
        b.asOfNsec = asOf % S;
        b.voidAfterSec = voidAfter / S;
        b.voidAfterNsec = voidAfter % S;
        b.boundNsec = bound;
        b.maxDriftPpb = drift;
        b.clockStatus = status;
        return b;
    }

    @Test
    void shouldGrowTheBoundWithDriftSinceAsOf() {
        // 2 s after as_of at 1000 ppb: 2 us on top of 10 us.
        TimeBounds b = ClockBound.compute(snapshot(0, 10 * S, 10_000, 1000, 1), 2 * S, 2 * S, P);
        assertThat(b.earliestNanos()).isEqualTo(2 * S - 12_000);
        assertThat(b.latestNanos()).isEqualTo(2 * S + 12_000);
        assertThat(b.widthNanos()).isEqualTo(24_000);
        assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
    }

    @Test
    void shouldNotOverflowOverLongFreeRunningPeriods() {
        long oneYear = 365L * 86_400 * S;
        TimeBounds b = ClockBound.compute(snapshot(0, 2 * oneYear, 0, 999_999_999, 2), 5 * S, oneYear, P);
        assertThat(b.latestNanos() - 5 * S).isEqualTo(oneYear / S * 999_999_999L);
    }

    @Test
    void shouldDegradeStatusWithAge() {
        long asOf = 100 * S;
        long voidAfter = asOf + 60 * S;
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 1), 0, asOf + 4 * S, P).status())
                .isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 1), 0, asOf + 5 * S, P).status())
                .isEqualTo(TimeBounds.Status.FREE_RUNNING);
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 2), 0, asOf + 1, P).status())
                .isEqualTo(TimeBounds.Status.FREE_RUNNING);
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 1), 0, voidAfter, P).status())
                .isEqualTo(TimeBounds.Status.UNKNOWN);
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 0), 0, asOf, P).status())
                .isEqualTo(TimeBounds.Status.UNKNOWN);
        assertThat(ClockBound.compute(snapshot(asOf, voidAfter, 0, 0, 3), 0, asOf, P).status())
                .isEqualTo(TimeBounds.Status.DISRUPTED);
    }

    @Test
    void shouldToleratePreciselyOneMicrosecondOfCausalityBlur() {
        long asOf = 100 * S;
        TimeBounds b = ClockBound.compute(snapshot(asOf, asOf + S, 50, 1000, 1), 7 * S, asOf - 1000, P);
        assertThat(b.widthNanos()).as("within the blur, no time elapsed").isEqualTo(100);
        assertThatThrownBy(() -> ClockBound.compute(snapshot(asOf, asOf + S, 50, 1000, 1), 7 * S, asOf - 1001, P))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("/shm: ClockBound causality breach");
    }

    @Test
    void shouldRejectAMalformedDrift() {
        assertThatThrownBy(() -> ClockBound.compute(snapshot(0, S, 0, 1_000_000_000L, 1), 0, 0, P))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("max_drift_ppb");
    }

    @Test
    void shouldReadBoundsFromARealSegment() throws Exception {
        Path file = dir.resolve("shm0");
        try (ShmWriter w = ShmWriter.valid(file)) {
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            w.write(mono, mono + 3600 * S, 5_000, 42, 15_000, 1);
            try (BoundedClock cb = BoundedClock.clockBound(file)) {
                long before = KernelClocks.nanos(ClockId.REALTIME);
                TimeBounds b = cb.now(new TimeBounds());
                long after = KernelClocks.nanos(ClockId.REALTIME);
                assertThat(b.status()).isIn(TimeBounds.Status.SYNCHRONIZED, TimeBounds.Status.FREE_RUNNING);
                assertThat(b.widthNanos()).isGreaterThanOrEqualTo(10_000);
                assertThat(b.earliestNanos()).isLessThanOrEqualTo(after - 5_000);
                assertThat(b.latestNanos()).isGreaterThanOrEqualTo(before + 5_000);
                assertThat(b.disruptionMarker()).isEqualTo(42);
                assertThat(cb.description()).isEqualTo("clockbound " + file);
                assertThat(b.source()).isSameAs(cb);
            }
        }
    }

    @Test
    void aCausalityBreachFromTheSegmentIsOneLine() throws Exception {
        Path file = dir.resolve("shm0");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound cb = openAfter(w, file)) {
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            w.write(mono + 3600 * S, mono + 7200 * S, 5_000, 0, 0, 1); // as_of an hour in the future
            assertThatThrownBy(() -> cb.now(new TimeBounds())).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(file + ": ClockBound causality breach");
        }
    }

    @Test
    void nowShouldAllocateNothing() throws Exception {
        Path file = dir.resolve("alloc");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound cb = openAfter(w, file)) {
            long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
            w.write(mono, mono + 3600 * S, 5_000, 0, 50_000, 1);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            TimeBounds b = new TimeBounds();
            long sink = 0;
            for (int i = 0; i < 100_000; i++) {
                sink += cb.now(b).widthNanos();
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000_000; i++) {
                sink += cb.now(b).widthNanos();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).isPositive();
            assertThat(allocated).as("bytes allocated by 1,000,000 ClockBound reads").isLessThan(16_384);
        }
    }

    private static ClockBound openAfter(ShmWriter w, Path file) throws DeviceException {
        return ClockBound.open(file);
    }

    @Test
    void wrongMagicIsRejected() throws Exception {
        Path file = dir.resolve("magic");
        try (ShmWriter w = new ShmWriter(file, 80)) {
            w.header(0x12345678, 0x43420200, 80, 2, 2);
            assertThatThrownBy(() -> ClockBound.open(file)).isInstanceOf(DeviceException.class)
                    .hasMessage(file + ": not ClockBound v2 (magic 0x12345678 0x43420200)");
        }
    }

    @Test
    void wrongSizeIsRejected() throws Exception {
        Path small = dir.resolve("small");
        Files.write(small, new byte[40]);
        assertThatThrownBy(() -> ClockBound.open(small)).isInstanceOf(DeviceException.class)
                .hasMessage(small + ": not ClockBound v2 (40 bytes, under 80)");
        Path file = dir.resolve("segsize");
        try (ShmWriter w = new ShmWriter(file, 80)) {
            w.header(0x414D5A4E, 0x43420200, 4096, 2, 2);
            assertThatThrownBy(() -> ClockBound.open(file)).hasMessageContaining("segsize 4096");
        }
    }

    @Test
    void wrongVersionIsRejected() throws Exception {
        Path file = dir.resolve("version");
        try (ShmWriter w = new ShmWriter(file, 80)) {
            w.header(0x414D5A4E, 0x43420200, 80, 1, 2);
            assertThatThrownBy(() -> ClockBound.open(file)).hasMessage(
                    file + ": unsupported ClockBound segment version 1, expected 2");
            w.header(0x414D5A4E, 0x43420200, 80, 0, 0);
            assertThatThrownBy(() -> ClockBound.open(file)).hasMessage(
                    file + ": ClockBound segment not initialised (version 0)");
        }
    }

    @Test
    void missingSegmentIsEnoent() {
        Path file = dir.resolve("nope");
        assertThatThrownBy(() -> ClockBound.open(file)).isInstanceOf(DeviceException.class)
                .hasMessage(file + ": open failed: ENOENT (No such file or directory)")
                .extracting(e -> ((DeviceException) e).errno()).isEqualTo(Errno.ENOENT);
    }

    @Test
    void aGenerationThatNeverSettlesIsReported() throws Exception {
        Path file = dir.resolve("stuck");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound cb = ClockBound.open(file)) {
            w.header(0x414D5A4E, 0x43420200, 80, 2, 7); // odd: a writer died mid-update
            assertThatThrownBy(() -> cb.now(new TimeBounds())).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(file + ": ClockBound segment generation never settled within 100 ms (")
                    .hasMessageEndingWith("now 7, odd: writer stuck mid-update)");
            w.header(0x414D5A4E, 0x43420200, 80, 2, 0);
            assertThatThrownBy(() -> cb.now(new TimeBounds())).hasMessageContaining("not initialised");
        }
    }

    @Test
    void aReaderRacingTheWriterNeverSeesATornSnapshot() throws Exception {
        Path file = dir.resolve("race");
        try (ShmWriter w = ShmWriter.valid(file); ClockBound cb = ClockBound.open(file)) {
            w.write(S + 1, 2 * S, 3, ~1L, 1, 1); // k = 1
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                long k = 1;
                while (!stop.get()) {
                    k++;
                    // Every field derives from k, so a mix of two updates is detectable.
                    w.write(k * S + (k % 1000), (k + 1) * S, 3 * k, ~k, (int) (k & 0x3FFF_FFFF), (int) (k & 3));
                    for (int i = 0; i < 20; i++) {
                        Thread.onSpinWait(); // leave readers a window, as a 1 Hz daemon does
                    }
                }
            }, "shm-writer");
            writer.start();
            TimeBounds b = new TimeBounds();
            long distinct = 0;
            long last = -1;
            try {
                for (int i = 0; i < 100_000; i++) {
                    try {
                        cb.readSegment(b);
                    } catch (IllegalStateException stuck) {
                        // The writer thread was descheduled mid-update for longer than the read's settle budget
                        // (a busy machine): the read refused, which is not a torn snapshot. Read again.
                        assertThat(stuck).hasMessageContaining("never settled");
                        continue;
                    }
                    long k = b.asOfSec;
                    assertThat(b.asOfNsec).isEqualTo(k % 1000);
                    assertThat(b.voidAfterSec).isEqualTo(k + 1);
                    assertThat(b.boundNsec).isEqualTo(3 * k);
                    assertThat(b.disruptionMarker).isEqualTo(~k);
                    assertThat(b.maxDriftPpb).isEqualTo(k & 0x3FFF_FFFF);
                    assertThat(b.clockStatus).isEqualTo((int) (k & 3));
                    if (k != last) {
                        distinct++;
                        last = k;
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertThat(distinct).as("the reader saw the writer progress").isGreaterThan(1);
        }
    }

    @Test
    void adjtimexBoundsFollowTheSyncRule() {
        TimexReading synced = new TimexReading(0, 0, 0, 0, 250, 10, 0, 1, 0, 10_000, 37);
        AdjtimexBounds adjtimex = new AdjtimexBounds(() -> SyncStatuses.of(synced), () -> 1_000 * S);
        TimeBounds b = adjtimex.now(new TimeBounds());
        assertThat(b.earliestNanos()).isEqualTo(1_000 * S - 250_000);
        assertThat(b.latestNanos()).isEqualTo(1_000 * S + 250_000);
        assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        assertThat(b.source()).isSameAs(adjtimex);
        assertThat(b.disruptionMarker()).isZero();

        TimexReading unsynced = new TimexReading(5, 0x40, 0, 0, 16_000_000, 0, 0, 1, 0, 10_000, 0);
        b = new AdjtimexBounds(() -> SyncStatuses.of(unsynced), () -> 1_000 * S).now(b);
        assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
        assertThat(b.widthNanos()).isEqualTo(32 * S);
    }

    @Test
    void adjtimexFromTheRealKernelAnswers() {
        try (BoundedClock c = BoundedClock.adjtimex()) {
            TimeBounds b = c.now(new TimeBounds());
            assertThat(b.source()).isSameAs(c);
            assertThat(b.source().description()).isEqualTo("adjtimex");
            assertThat(b.earliestNanos()).isLessThanOrEqualTo(b.latestNanos());
        }
    }
}
