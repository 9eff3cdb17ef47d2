package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer laps the ring while another thread exports: no exported event may pair one event's payload with
 * another event's tick (a lap-old payload used to come out with the newer lap's tick).
 *
 * <p>Event k carries tick {@code T0 + (k mod M) * STEP} and payload k. M is a prime above every capacity, so
 * events a whole number of laps apart (a multiple of the capacity) never share a tick, and differ by at least
 * STEP ticks (a millisecond). The ticks lie in the second before the test (T0 is a second ago): past counter
 * values convert through the parameter history, the same way at every export, whereas a future one is
 * extrapolated past the updates to come (and clamped: tens of ms off). The check is therefore immune to the
 * conversion's own error and to load: a slow run exports fewer events per lap, never a wrong one.
 * 2.5 * 10^6 exported events per capacity (both exports together), 10^7 over the four.
 */
class EventRecorderConcurrencyTest {

    private static final int M = 1031; // prime, above 1024: k and k + j * capacity differ modulo M
    private static final long EXPORTED_PER_CAPACITY = 2_500_000;

    @BeforeAll
    static void waitForTheFastPath() {
        // Exact mode serves from the first call; this keeps the test's start the same in every mode.
        Clocks.awaitExactMode(java.time.Duration.ofSeconds(20));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 64, 1024})
    void anExportShouldNeverPairAPayloadWithAnotherLapsTick(int capacity) throws InterruptedException {
        EventRecorder recorder = new EventRecorder(capacity);
        long now = Clocks.ticks();
        // STEP: about 1 ms of counter ticks (ticksToNanos is linear in ticks over this second).
        long probe = 1L << 24;
        double nanosPerTick = (double) (Clocks.ticksToNanos(now, ClockId.MONOTONIC_RAW)
                - Clocks.ticksToNanos(now - probe, ClockId.MONOTONIC_RAW)) / probe;
        assertThat(nanosPerTick).isPositive();
        long step = Math.max(1, Math.round(1_000_000 / nanosPerTick));
        long t0 = now - (M + 1) * step; // the events' ticks: the second before now
        long[] expected = new long[M];
        for (int j = 0; j < M; j++) {
            expected[j] = Clocks.ticksToNanos(t0 + j * step, ClockId.MONOTONIC_RAW);
        }
        long tolerance = Math.round(step * nanosPerTick / 2); // half a step: half a millisecond

        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            long k = 0;
            while (!stop.get()) {
                for (int b = 0; b < 64; b++, k++) {
                    recorder.record(t0 + (k % M) * step, k);
                }
            }
        }, "event-writer");
        writer.setDaemon(true);
        writer.start();

        long[] exported = {0};
        long[] torn = {0};
        long[] firstTorn = {-1, 0};
        long[] rawTorn = {0};
        try {
            while (exported[0] < EXPORTED_PER_CAPACITY) {
                // The raw export: a tick must be exactly its payload's.
                recorder.exportTicks((tick, payload) -> {
                    exported[0]++;
                    if (tick != t0 + (payload % M) * step) {
                        rawTorn[0]++;
                    }
                });
                recorder.export(ClockId.MONOTONIC_RAW, (nanos, payload, extrapolated) -> {
                    exported[0]++;
                    if (Math.abs(nanos - expected[(int) (payload % M)]) > tolerance) {
                        if (torn[0]++ == 0) {
                            firstTorn[0] = payload;
                            firstTorn[1] = nanos;
                        }
                    }
                });
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(recorder.recorded()).as("the writer ran").isPositive();
        assertThat(rawTorn[0]).as("raw torn of %d exported (capacity %d)", exported[0], capacity).isZero();
        assertThat(torn[0]).as("torn of %d exported (capacity %d), first: payload %d exported at %d ns, "
                + "expected %d ns", exported[0], capacity, firstTorn[0], firstTorn[1],
                firstTorn[0] < 0 ? 0 : expected[(int) (firstTorn[0] % M)]).isZero();
    }
}
