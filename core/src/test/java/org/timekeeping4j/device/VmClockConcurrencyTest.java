package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;

/** The seqlock read against a writer that updates as fast as it can, and the read paths' allocation. */
class VmClockConcurrencyTest {

    private static final long BASE = 1_700_000_000L;
    private static final long BOUND_FLAGS = VmClock.FLAG_TIME_MAXERROR_VALID | VmClock.FLAG_PERIOD_MAXERROR_VALID;

    @TempDir
    Path dir;

    /**
     * Update k, every field derived from k so that a mix of two updates shows: marker k, generation k, status
     * by k's parity, counter_value 7k, period 0 (the time is time_sec + time_frac whatever the counter),
     * time_sec BASE + k, time_frac k &lt;&lt; 20, maximum error k ns with a zero rate.
     */
    private static void update(VmClockPageWriter w, long k) {
        w.begin();
        w.kind(VmClock.COUNTER_HERE, 1, (k & 1) == 0 ? 2 : 3, BOUND_FLAGS | VmClock.FLAG_VM_GEN_COUNTER_PRESENT, k);
        w.period((int) (k & 63), 7 * k, 0, k, 0);
        w.time(BASE + k, k << 20, 3 * k, k);
        w.vmGeneration(k);
        w.end();
    }

    @Test
    void aReaderRacingAWriterNeverSeesATornPage() throws Exception {
        assumeThat(VmClock.COUNTER_HERE).as("an architecture with a counter read").isNotNegative();
        Path file = dir.resolve("race");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            update(w, 1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            Thread writer = new Thread(() -> {
                long k = 1;
                while (!stop.get()) {
                    update(w, ++k);
                    written.set(k);
                    for (int i = 0; i < 10; i++) {
                        Thread.onSpinWait(); // a few ns between updates, or a reader on 2 vCPUs never gets in
                    }
                }
            }, "vmclock-writer");
            writer.start();
            TimeBounds b = new TimeBounds();
            long torn = 0;
            long reads = 0;
            long refused = 0;
            long distinct = 0;
            long last = -1;
            String firstTorn = null;
            long end = System.nanoTime() + 3_000_000_000L; // bounded: 3 s or 300,000 reads, whichever first
            try {
                for (int i = 0; i < 300_000 && System.nanoTime() - end < 0; i++) {
                    long k;
                    boolean ok;
                    try {
                        if ((i & 15) != 0) {
                            clock.now(b, ClockId.TAI);
                            k = b.disruptionMarker();
                            ok = b.seconds == BASE + k
                                    && b.nanosOfSecond == Math.unsignedMultiplyHigh(k << 20, 1_000_000_000L)
                                    && b.latestNanos() - b.nanos() == k && b.nanos() - b.earliestNanos() == k
                                    && b.status() == ((k & 1) == 0 ? TimeBounds.Status.SYNCHRONIZED
                                            : TimeBounds.Status.FREE_RUNNING);
                        } else {
                            VmClockPage p = clock.page();
                            k = p.disruptionMarker();
                            ok = p.vmGenerationCounter() == k && p.counterValue() == 7 * k && p.timeSec() == BASE + k
                                    && p.timeFracSec() == k << 20 && p.timeMaxerrorNanosec() == k
                                    && p.timeEsterrorNanosec() == 3 * k && p.counterPeriodShift() == (k & 63)
                                    && p.counterPeriodEsterrorRateFracSec() == k
                                    && p.clockStatus() == ((k & 1) == 0 ? 2 : 3);
                        }
                    } catch (IllegalStateException e) {
                        // A writer descheduled mid-update (a loaded machine) leaves seq_count odd past the settle
                        // budget: the reader refuses, as the driver does, and returns nothing torn. Not a read.
                        assertThat(e).hasMessageContaining("never settled");
                        refused++;
                        continue;
                    }
                    reads++;
                    if (!ok) {
                        torn++;
                        if (firstTorn == null) {
                            firstTorn = "k " + k + ": " + ((i & 15) != 0 ? b : clock.page());
                        }
                    }
                    if (k != last) {
                        distinct++;
                        last = k;
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertThat(torn).as("torn reads of %d (first: %s)", reads, firstTorn).isZero();
            assertThat(distinct).as("the reader saw the writer progress (%d reads, %d refused)", reads, refused)
                    .isGreaterThan(1);
            System.out.println("VmClockConcurrencyTest: " + reads + " reads, " + distinct + " distinct updates of "
                    + written.get() + " written, 0 torn, " + refused + " refused");
        }
    }

    @Test
    void readsAllocateNothing() throws Exception {
        assumeThat(VmClock.COUNTER_HERE).as("an architecture with a counter read").isNotNegative();
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            update(w, 2);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            TimeBounds b = new TimeBounds();
            long sink = 0;
            for (int i = 0; i < 200_000; i++) { // warm up: the JIT
                sink += clock.now(b, ClockId.TAI).nanos() + clock.disruptionMarker()
                        + (clock.disruptedSince(2, 2) ? 1 : 0) + clock.vmGenerationCounter();
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000_000; i++) {
                sink += clock.now(b, ClockId.TAI).nanos();
                sink += clock.disruptionMarker() + clock.vmGenerationCounter();
                sink += clock.disruptedSince(2, 2) ? 1 : 0;
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).isNotZero();
            // 4*10^6 reads: even 8 bytes each would be 32 MB. Allow a little for the measurement itself.
            assertThat(allocated).as("bytes allocated by 4,000,000 reads").isLessThan(16_384);
        }
    }
}
