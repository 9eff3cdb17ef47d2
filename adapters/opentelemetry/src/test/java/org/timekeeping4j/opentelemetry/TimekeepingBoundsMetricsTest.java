package org.timekeeping4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.TimeBounds;

class TimekeepingBoundsMetricsTest {

    @TempDir
    Path dir;

    /** One collection of the reader: each instrument's points, by name. */
    private record Collected(Map<String, MetricData> byName) {
        static Collected of(InMemoryMetricReader reader) {
            return new Collected(reader.collectAllMetrics().stream()
                    .collect(Collectors.toMap(MetricData::getName, Function.identity())));
        }

        /** The half-width, null where the collection has none (the bounds guarantee nothing). */
        Double halfWidth() {
            MetricData m = byName.get(TimekeepingBoundsMetrics.HALF_WIDTH);
            if (m == null) {
                return null;
            }
            List<DoublePointData> points = List.copyOf(m.getDoubleGaugeData().getPoints());
            assertThat(points).hasSize(1);
            return points.get(0).getValue();
        }

        Set<TimeBounds.Status> statusesAtOne() {
            Set<TimeBounds.Status> at = EnumSet.noneOf(TimeBounds.Status.class);
            List<LongPointData> points = List.copyOf(
                    byName.get(TimekeepingBoundsMetrics.STATUS).getLongGaugeData().getPoints());
            assertThat(points).hasSize(4);
            for (LongPointData p : points) {
                assertThat(p.getValue()).isIn(0L, 1L);
                if (p.getValue() == 1) {
                    at.add(TimeBounds.Status.valueOf(
                            p.getAttributes().get(TimekeepingBoundsMetrics.STATUS_KEY).toUpperCase()));
                }
            }
            return at;
        }

        long disruptions() {
            MetricData m = byName.get(TimekeepingBoundsMetrics.DISRUPTIONS);
            assertThat(m.getLongSumData().isMonotonic()).isTrue();
            List<LongPointData> points = List.copyOf(m.getLongSumData().getPoints());
            assertThat(points).hasSize(1);
            return points.get(0).getValue();
        }
    }

    /** A ClockBound segment the test rewrites, read by core's own reader: the status is the segment's. */
    @Test
    void theInstrumentsFollowTheStatusAndCountEachTransitionIntoDisrupted() throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (Segment segment = new Segment(dir.resolve("shm0"));
             BoundedClock clock = BoundedClock.clockBound(segment.path);
             SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
             TimekeepingBoundsMetrics metrics = TimekeepingBoundsMetrics.register(provider.get("test"), clock)) {
            Collected c = Collected.of(reader);
            assertThat(c.byName()).containsOnlyKeys(TimekeepingBoundsMetrics.HALF_WIDTH,
                    TimekeepingBoundsMetrics.STATUS, TimekeepingBoundsMetrics.DISRUPTIONS);
            assertThat(c.byName().get(TimekeepingBoundsMetrics.HALF_WIDTH).getUnit()).isEqualTo("s");
            assertThat(c.byName().get(TimekeepingBoundsMetrics.STATUS).getUnit()).isEqualTo("{status}");
            assertThat(c.byName().get(TimekeepingBoundsMetrics.DISRUPTIONS).getUnit()).isEqualTo("{disruption}");
            for (MetricData m : c.byName().values()) {
                for (var p : m.getData().getPoints()) {
                    assertThat(p.getAttributes().get(TimekeepingBoundsMetrics.SOURCE_KEY)).isEqualTo("clockbound");
                }
            }
            // The bound grows by the drift (15 ppm) since as_of: under a millisecond within a minute.
            assertThat(c.halfWidth()).isBetween(Segment.BOUND_NANOS / 1e9, 1e-3);
            assertThat(c.statusesAtOne()).containsExactly(TimeBounds.Status.SYNCHRONIZED);
            assertThat(c.disruptions()).isZero();

            segment.status(Segment.DISRUPTED);
            c = Collected.of(reader);
            assertThat(c.halfWidth()).as("no guarantee").isNull();
            assertThat(c.statusesAtOne()).containsExactly(TimeBounds.Status.DISRUPTED);
            assertThat(c.disruptions()).isEqualTo(1);
            assertThat(Collected.of(reader).disruptions()).as("one transition, collected twice").isEqualTo(1);

            segment.status(Segment.FREE_RUNNING);
            c = Collected.of(reader);
            assertThat(c.halfWidth()).isBetween(Segment.BOUND_NANOS / 1e9, 1e-3);
            assertThat(c.statusesAtOne()).containsExactly(TimeBounds.Status.FREE_RUNNING);
            segment.status(Segment.DISRUPTED);
            assertThat(Collected.of(reader).disruptions()).isEqualTo(2);
            segment.status(Segment.UNKNOWN);
            c = Collected.of(reader);
            assertThat(c.statusesAtOne()).containsExactly(TimeBounds.Status.UNKNOWN);
            assertThat(c.halfWidth()).isNull();
            assertThat(c.disruptions()).isEqualTo(2);

            // A segment the reader refuses (the daemon restarting with another layout): UNKNOWN, not an error.
            segment.status(Segment.SYNCHRONIZED).version(7);
            c = Collected.of(reader);
            assertThat(c.statusesAtOne()).containsExactly(TimeBounds.Status.UNKNOWN);
            assertThat(c.halfWidth()).isNull();
        }
    }

    @Test
    void closingRemovesTheCallback() throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (Segment segment = new Segment(dir.resolve("shm0"));
             BoundedClock clock = BoundedClock.clockBound(segment.path);
             SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build()) {
            TimekeepingBoundsMetrics metrics = TimekeepingBoundsMetrics.register(provider.get("test"), clock);
            assertThat(reader.collectAllMetrics()).hasSize(3);
            metrics.close();
            assertThat(reader.collectAllMetrics()).isEmpty();
        }
    }

    /** The process's clock, whatever this host's status: the instruments say what a direct read says. */
    @Test
    void theSystemClocksInstrumentsAgreeWithADirectRead() throws Exception {
        BoundedClock system = BoundedClock.system();
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
             TimekeepingBoundsMetrics metrics = TimekeepingBoundsMetrics.register(provider.get("test"))) {
            TimeBounds.Status before = system.now(new TimeBounds()).status();
            Collected c = Collected.of(reader);
            TimeBounds.Status after = system.now(new TimeBounds()).status();

            Set<TimeBounds.Status> at = c.statusesAtOne();
            assertThat(at).hasSize(1);
            TimeBounds.Status collected = at.iterator().next();
            assertThat(collected).isIn(before, after);
            if (collected == TimeBounds.Status.SYNCHRONIZED || collected == TimeBounds.Status.FREE_RUNNING) {
                assertThat(c.halfWidth()).isPositive().isFinite();
            } else {
                assertThat(c.halfWidth()).isNull();
            }
            assertThat(c.disruptions()).isEqualTo(collected == TimeBounds.Status.DISRUPTED ? 1 : 0);
            String description = system.description();
            assertThat(description).startsWith(TimekeepingBoundsMetrics.sourceKind(description));
            Attributes attributes = List.copyOf(c.byName().get(TimekeepingBoundsMetrics.STATUS)
                    .getLongGaugeData().getPoints()).get(0).getAttributes();
            assertThat(attributes.get(TimekeepingBoundsMetrics.SOURCE_KEY))
                    .isEqualTo(TimekeepingBoundsMetrics.sourceKind(description))
                    .isIn("clockbound", "chronyd", "adjtimex");
        }
    }
}
