package org.timekeeping4j.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.EnumSet;
import java.util.Set;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.TimeBounds;

class TimekeepingBoundsMetricsTest {

    @TempDir
    Path dir;

    /** Counts the reads of a real clock, to see which meter reads share a sample. */
    private static final class Counting implements BoundedClock {
        final AtomicInteger reads = new AtomicInteger();
        final BoundedClock clock;

        Counting(BoundedClock clock) {
            this.clock = clock;
        }

        @Override
        public TimeBounds now(TimeBounds into) {
            reads.incrementAndGet();
            return clock.now(into);
        }

        @Override
        public String description() {
            return clock.description();
        }

        @Override
        public void close() {
            clock.close();
        }
    }

    private static Gauge status(SimpleMeterRegistry registry, TimeBounds.Status s) {
        return registry.get(TimekeepingBoundsMetrics.STATUS).tag("status", TimekeepingBoundsMetrics.statusTag(s))
                .gauge();
    }

    private static Set<TimeBounds.Status> statusesAtOne(SimpleMeterRegistry registry) {
        Set<TimeBounds.Status> at = EnumSet.noneOf(TimeBounds.Status.class);
        for (TimeBounds.Status s : TimeBounds.Status.values()) {
            double v = status(registry, s).value();
            assertThat(v).as("status gauge %s", s).isIn(0.0, 1.0);
            if (v == 1) {
                at.add(s);
            }
        }
        return at;
    }

    /** A ClockBound segment the test rewrites, read by core's own reader: the status is the segment's. */
    @Test
    void theMetersFollowTheStatusAndCountEachTransitionIntoDisrupted() throws Exception {
        try (Segment segment = new Segment(dir.resolve("shm0"));
             BoundedClock clock = BoundedClock.clockBound(segment.path)) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new TimekeepingBoundsMetrics(clock, 0).bindTo(registry);
            Gauge halfWidth = registry.get(TimekeepingBoundsMetrics.HALF_WIDTH).gauge();
            FunctionCounter disruptions = registry.get(TimekeepingBoundsMetrics.DISRUPTIONS).functionCounter();

            assertThat(halfWidth.getId().getBaseUnit()).isEqualTo("seconds");
            assertThat(registry.getMeters()).hasSize(6);
            for (Meter m : registry.getMeters()) {
                assertThat(m.getId().getTag("source")).as(m.getId().toString()).isEqualTo("clockbound");
            }
            assertThat(registry.get(TimekeepingBoundsMetrics.STATUS).gauges()).hasSize(4);

            // The bound grows by the drift (15 ppm) since as_of: under a millisecond within a minute.
            assertThat(halfWidth.value()).isBetween(Segment.BOUND_NANOS / 1e9, 1e-3);
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.SYNCHRONIZED);
            assertThat(disruptions.count()).isZero();

            segment.status(Segment.DISRUPTED);
            assertThat(halfWidth.value()).as("no guarantee").isNaN();
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.DISRUPTED);
            assertThat(disruptions.count()).as("one transition, read many times").isEqualTo(1);

            segment.status(Segment.FREE_RUNNING);
            assertThat(halfWidth.value()).isBetween(Segment.BOUND_NANOS / 1e9, 1e-3);
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.FREE_RUNNING);
            segment.status(Segment.DISRUPTED);
            assertThat(disruptions.count()).isEqualTo(2);
            segment.status(Segment.UNKNOWN);
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.UNKNOWN);
            assertThat(halfWidth.value()).isNaN();
            assertThat(disruptions.count()).isEqualTo(2);

            // A segment the reader refuses (the daemon restarting with another layout): UNKNOWN, not an error.
            segment.status(Segment.SYNCHRONIZED).version(7);
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.UNKNOWN);
            assertThat(halfWidth.value()).isNaN();
        }
    }

    @Test
    void readsCloseTogetherShareOneSample() throws Exception {
        try (Segment segment = new Segment(dir.resolve("shm0"));
             Counting clock = new Counting(BoundedClock.clockBound(segment.path))) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new TimekeepingBoundsMetrics(clock, Long.MAX_VALUE).bindTo(registry);
            assertThat(statusesAtOne(registry)).containsExactly(TimeBounds.Status.SYNCHRONIZED);
            segment.status(Segment.DISRUPTED);
            assertThat(statusesAtOne(registry)).as("within the sharing window").containsExactly(
                    TimeBounds.Status.SYNCHRONIZED);
            registry.get(TimekeepingBoundsMetrics.HALF_WIDTH).gauge().value();
            registry.get(TimekeepingBoundsMetrics.DISRUPTIONS).functionCounter().count();
            assertThat(clock.reads.get()).as("ten meter reads, one clock read").isEqualTo(1);
        }
    }

    /** The process's clock, whatever this host's status: the gauges say what a direct read says. */
    @Test
    void theSystemClocksMetersAgreeWithADirectRead() throws Exception {
        BoundedClock system = BoundedClock.system();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // One sample for every meter read below: the meters must agree with one another and with the reads around.
        TimekeepingBoundsMetrics metrics = new TimekeepingBoundsMetrics(system, Long.MAX_VALUE);
        TimeBounds.Status before = system.now(new TimeBounds()).status();
        metrics.bindTo(registry);
        Set<TimeBounds.Status> at = statusesAtOne(registry);
        TimeBounds.Status after = system.now(new TimeBounds()).status();

        assertThat(at).hasSize(1);
        TimeBounds.Status gauged = at.iterator().next();
        assertThat(gauged).isIn(before, after);
        double halfWidth = registry.get(TimekeepingBoundsMetrics.HALF_WIDTH).gauge().value();
        if (gauged == TimeBounds.Status.SYNCHRONIZED || gauged == TimeBounds.Status.FREE_RUNNING) {
            assertThat(halfWidth).isPositive().isFinite();
        } else {
            assertThat(halfWidth).isNaN();
        }
        assertThat(registry.get(TimekeepingBoundsMetrics.DISRUPTIONS).functionCounter().count())
                .isEqualTo(gauged == TimeBounds.Status.DISRUPTED ? 1 : 0);
        String description = system.description();
        assertThat(registry.get(TimekeepingBoundsMetrics.HALF_WIDTH).gauge().getId().getTag("source"))
                .isEqualTo(TimekeepingBoundsMetrics.sourceKind(description))
                .isIn("clockbound", "chronyd", "adjtimex");
        assertThat(description).startsWith(TimekeepingBoundsMetrics.sourceKind(description));
    }

    @Test
    void aScrapeOfTheSystemClockAllocatesNothingOfItsOwn() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new TimekeepingBoundsMetrics(BoundedClock.system(), 0).bindTo(registry);
        Gauge halfWidth = registry.get(TimekeepingBoundsMetrics.HALF_WIDTH).gauge();
        Gauge sync = status(registry, TimeBounds.Status.SYNCHRONIZED);
        FunctionCounter disruptions = registry.get(TimekeepingBoundsMetrics.DISRUPTIONS).functionCounter();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double sink = 0;
        for (int i = 0; i < 100_000; i++) {
            sink += halfWidth.value() + sync.value() + disruptions.count();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 300_000; i++) {
            sink += halfWidth.value() + sync.value() + disruptions.count();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isNotEqualTo(-1);
        assertThat(allocated).as("bytes allocated by 900,000 meter reads").isLessThan(16_384);
    }
}
