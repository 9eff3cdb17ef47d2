package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.timekeeping4j.linux.DeviceSyscalls;

/**
 * The PHC at counter speed against a PHC whose true time the test knows at every MONOTONIC_RAW value
 * ({@link RawPhcKernel}: no driver here offers one; the lab's netdevsim and ptp_vmclock runs are the real drivers).
 * Each read says the MONOTONIC_RAW value it converted ({@code TimeBounds.counter}): the PHC's true time there must lie
 * in [earliest, latest]. A read that misses is a violation; the checks need their samples, never luck.
 */
class FastPtpClockTest {

    private static final int READS = 100_000;

    @AfterEach
    void realKernel() {
        DeviceSyscalls.use(DeviceSyscalls.linux());
    }

    /** Reads; returns the violations and fills {@code widths} (ns) with each read's width. */
    private static long read(FastPtpClock fast, RawPhcKernel kernel, long[] widths) {
        TimeBounds b = new TimeBounds();
        long violations = 0;
        for (int i = 0; i < widths.length; i++) {
            fast.now(b);
            long truth = kernel.phcAt(b.counter); // the PHC at the very RAW value the read converted
            if (b.status() != TimeBounds.Status.SYNCHRONIZED || truth < b.earliestNanos() || truth > b.latestNanos()) {
                violations++;
            }
            widths[i] = b.widthNanos();
        }
        return violations;
    }

    private static void awaitAnchors(FastPtpClock fast, long generation) {
        await("cross timestamp " + generation).atMost(Duration.ofSeconds(60))
                .until(() -> fast.anchor().generation() >= generation);
    }

    /**
     * A PHC 37 us ahead of RAW and 25 ppm fast: after the first cross timestamps every read holds the PHC, whether
     * the driver has PRECISE cross timestamps or only clock_gettime triplets.
     */
    @ParameterizedTest
    @EnumSource(RawPhcKernel.Mode.class)
    void everyReadHoldsThePhcsTime(RawPhcKernel.Mode mode) throws Exception {
        RawPhcKernel kernel = new RawPhcKernel(mode, 37_000, 25_000);
        DeviceSyscalls.use(kernel);
        try (PtpClock phc = PtpClock.open(Path.of(RawPhcKernel.PATH)); FastPtpClock fast = phc.fast()) {
            awaitAnchors(fast, 3);
            long[] widths = new long[READS];
            long violations = read(fast, kernel, widths);
            Arrays.sort(widths);
            System.out.printf("FastPtpClock over %s: %d reads, %d outside; width p50 %d ns, p99 %d ns; %s%n", mode,
                    READS, violations, widths[READS / 2], widths[READS * 99 / 100], fast.describe());
            assertThat(violations).as(fast.describe()).isZero();
            assertThat(fast.method()).contains(mode == RawPhcKernel.Mode.PRECISE ? PtpClock.Method.PRECISE
                    : PtpClock.Method.CLOCK_GETTIME);
            assertThat(fast.disruptions()).isZero();
            // The timekeeper follows the PHC: its own read is near it (PRECISE: within 1 us; triplets: 50 us).
            long slack = mode == RawPhcKernel.Mode.PRECISE ? 1_000 : 50_000;
            long before = RawPhcKernel.raw();
            long v = fast.nanos();
            long after = RawPhcKernel.raw();
            assertThat(v).isBetween(kernel.phcAt(before) - slack, kernel.phcAt(after) + slack);
        }
    }

    /**
     * A step of the PHC (phc_ctl set, ptp4l's first step) is found by the next cross timestamp, counted as a
     * disruption; from the cross timestamp after it on, every read holds the PHC again.
     */
    @Test
    void aStepIsFoundAndTheBoundHoldsAgainAfterIt() throws Exception {
        RawPhcKernel kernel = new RawPhcKernel(RawPhcKernel.Mode.PRECISE, 0, -12_000);
        DeviceSyscalls.use(kernel);
        try (PtpClock phc = PtpClock.open(Path.of(RawPhcKernel.PATH)); FastPtpClock fast = phc.fast()) {
            awaitAnchors(fast, 3);
            kernel.step(250_000);
            await("the step found").atMost(Duration.ofSeconds(60)).until(() -> fast.disruptions() == 1);
            awaitAnchors(fast, fast.anchor().generation() + 1);
            long[] widths = new long[READS / 4];
            assertThat(read(fast, kernel, widths)).as(fast.describe()).isZero();
            // A rate change well past the holdover allowance is found the same way.
            kernel.setRate(+40_000);
            await("the rate change found").atMost(Duration.ofSeconds(60)).until(() -> fast.disruptions() == 2);
            awaitAnchors(fast, fast.anchor().generation() + 2);
            assertThat(read(fast, kernel, widths)).as(fast.describe()).isZero();
        }
    }

    /** A device that stops answering: the failure is said, and past the age limit reads are unbounded, UNKNOWN. */
    @Test
    void aReadPastTheAgeLimitIsUnbounded() throws Exception {
        RawPhcKernel kernel = new RawPhcKernel(RawPhcKernel.Mode.PRECISE, 1_000, 0);
        DeviceSyscalls.use(kernel);
        try (FastPtpClock fast = FastPtpClock.start(PtpClock.open(Path.of(RawPhcKernel.PATH)), 1_000_000_000L)) {
            assertThat(fast.now(new TimeBounds()).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            kernel.remove();
            await("the failure said").atMost(Duration.ofSeconds(60)).until(() -> fast.failure().isPresent());
            assertThat(fast.failure().orElseThrow()).contains("ENODEV");
            await("the age limit").atMost(Duration.ofSeconds(60)).until(() -> fast.anchorAgeNanos() > 1_000_000_000L);
            TimeBounds b = fast.now(new TimeBounds());
            assertThat(b.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
            assertThat(b.earliestNanos()).isEqualTo(Long.MIN_VALUE);
            assertThat(b.latestNanos()).isEqualTo(Long.MAX_VALUE);
            assertThat(fast.describe()).contains("last failed");
        }
    }

    /** A clock never closed stops its thread and closes its descriptor once it is unreachable. */
    @Test
    void aClockNeverClosedStopsItsThreadOnceUnreachable() throws Exception {
        RawPhcKernel kernel = new RawPhcKernel(RawPhcKernel.Mode.PRECISE, 0, 0);
        DeviceSyscalls.use(kernel);
        String name = "tk4j-phc " + RawPhcKernel.PATH;
        try (PtpClock phc = PtpClock.open(Path.of(RawPhcKernel.PATH))) {
            java.lang.ref.WeakReference<FastPtpClock> ref = new java.lang.ref.WeakReference<>(phc.fast());
            assertThat(threadNamed(name)).as("the discipline thread runs").isTrue();
            await("the thread stopped after the clock became unreachable").atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        System.gc(); // the clock is unreachable: a collection finds it, and the Cleaner runs
                        return ref.get() == null && !threadNamed(name);
                    });
        }
    }

    private static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }
}
