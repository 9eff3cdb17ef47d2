package org.timekeeping4j.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.Locale;
import java.util.Objects;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.TimeBounds;

/**
 * Publishes a {@link BoundedClock}'s bounds as OpenTelemetry instruments: how wide the interval around true time
 * is, how far to trust it and how often it was seen disrupted. Every measurement carries the attribute
 * {@code source}, the kind of source (its {@link BoundedClock#description()}'s first word: {@code clockbound},
 * {@code chronyd}, {@code adjtimex}, {@code vmclock}), fixed at registration.
 *
 * <ul>
 *   <li>{@value #HALF_WIDTH} (observable double gauge, unit {@code s}): half of latest - earliest, the most the
 *       clock's estimate can be off; no point while the bounds guarantee nothing (unbounded, or status UNKNOWN
 *       or DISRUPTED): the SDK drops NaN, and an absent point is OpenTelemetry's "no value".</li>
 *   <li>{@value #STATUS} (observable long gauge, unit {@code {status}}, attribute {@code status} =
 *       {@code synchronized}, {@code free_running}, {@code disrupted} or {@code unknown}): 1 for the status now,
 *       0 for the others.</li>
 *   <li>{@value #DISRUPTIONS} (observable counter, unit {@code {disruption}}): the transitions into DISRUPTED the
 *       collections saw (a first collection that finds DISRUPTED counts). The clock is sampled only when
 *       metrics are collected, so a disruption shorter than the collection interval can pass unseen.</li>
 * </ul>
 *
 * <pre>{@code
 * try (TimekeepingBoundsMetrics metrics = TimekeepingBoundsMetrics.register(meterProvider.get("timekeeping4j"))) {
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Assumptions and Guarantees.</b> One batch callback samples the clock once per collection, so the three
 * instruments of one collection agree (exactly one status is 1): one {@link BoundedClock#now(TimeBounds)} into the
 * instance's own holder, which allocates nothing and, for {@link BoundedClock#system()}, makes no system call;
 * the attributes are built once, at registration. Safe for any number of collecting threads.
 * {@link #close()} removes the callback.
 */
public final class TimekeepingBoundsMetrics implements AutoCloseable {

    /** The half-width gauge's name. */
    public static final String HALF_WIDTH = "timekeeping.bounds.half_width";
    /** The status gauge's name. */
    public static final String STATUS = "timekeeping.bounds.status";
    /** The disruption counter's name. */
    public static final String DISRUPTIONS = "timekeeping.bounds.disruptions";
    /** The kind of source, on every measurement. */
    public static final AttributeKey<String> SOURCE_KEY = AttributeKey.stringKey("source");
    /** The status a {@value #STATUS} measurement is about. */
    public static final AttributeKey<String> STATUS_KEY = AttributeKey.stringKey("status");

    private static final TimeBounds.Status[] STATUSES = TimeBounds.Status.values();

    private final BoundedClock clock;
    private final Attributes sourceAttributes;
    private final Attributes[] statusAttributes = new Attributes[STATUSES.length];
    private final ObservableDoubleMeasurement halfWidth;
    private final ObservableLongMeasurement status;
    private final ObservableLongMeasurement disruptions;
    private final BatchCallback callback;

    // Guarded by this: the SDK may collect for several readers on several threads, and a TimeBounds holder is one
    // thread's (synchronized: uncontended unless two readers collect at the same instant).
    private final TimeBounds bounds = new TimeBounds();
    private TimeBounds.Status last;
    private long disruptionCount;

    private TimekeepingBoundsMetrics(Meter meter, BoundedClock clock) {
        this.clock = clock;
        String source = sourceKind(clock.description());
        sourceAttributes = Attributes.of(SOURCE_KEY, source);
        for (TimeBounds.Status s : STATUSES) {
            statusAttributes[s.ordinal()] = Attributes.of(SOURCE_KEY, source, STATUS_KEY, statusValue(s));
        }
        halfWidth = meter.gaugeBuilder(HALF_WIDTH)
                .setDescription("Half the width of the interval that contains true time; absent while it "
                        + "guarantees nothing")
                .setUnit("s")
                .buildObserver();
        status = meter.gaugeBuilder(STATUS)
                .setDescription("1 for the bounded clock's status now, 0 for the others")
                .setUnit("{status}") // an annotation, not "1": Prometheus would append _ratio
                .ofLongs()
                .buildObserver();
        disruptions = meter.counterBuilder(DISRUPTIONS)
                .setDescription("Transitions of the bounded clock into DISRUPTED seen by the collections")
                .setUnit("{disruption}")
                .buildObserver();
        callback = meter.batchCallback(this::observe, halfWidth, status, disruptions);
    }

    /**
     * Registers the instruments of the process's bounded clock, {@link BoundedClock#system()}, on {@code meter}.
     *
     * @param meter where the instruments go
     * @return the registration; close it to remove the callback
     * @throws DeviceException as {@link BoundedClock#system()}: a ClockBound segment that is unusable
     */
    public static TimekeepingBoundsMetrics register(Meter meter) throws DeviceException {
        return register(meter, BoundedClock.system());
    }

    /**
     * Registers the instruments of {@code clock} on {@code meter} (closing the registration does not close the
     * clock).
     *
     * @param meter where the instruments go
     * @param clock the bounded clock to sample
     * @return the registration; close it to remove the callback
     */
    public static TimekeepingBoundsMetrics register(Meter meter, BoundedClock clock) {
        return new TimekeepingBoundsMetrics(Objects.requireNonNull(meter, "meter"),
                Objects.requireNonNull(clock, "clock"));
    }

    /**
     * The {@code status} attribute's value for {@code status}.
     *
     * @param status a status
     * @return its name in lower case, e.g. {@code free_running}
     */
    public static String statusValue(TimeBounds.Status status) {
        return status.name().toLowerCase(Locale.ROOT);
    }

    /** One collection: one read of the clock, every instrument recorded from it. */
    private synchronized void observe() {
        TimeBounds.Status now;
        double half;
        try {
            clock.now(bounds);
            now = bounds.status();
            half = halfWidthSeconds(bounds);
        } catch (IllegalStateException e) {
            now = TimeBounds.Status.UNKNOWN; // the source's data unusable now (a ClockBound causality breach)
            half = Double.NaN;
        }
        if (now == TimeBounds.Status.DISRUPTED && last != TimeBounds.Status.DISRUPTED) {
            disruptionCount++;
        }
        last = now;
        if (!Double.isNaN(half)) {
            halfWidth.record(half, sourceAttributes);
        }
        for (TimeBounds.Status s : STATUSES) {
            status.record(s == now ? 1 : 0, statusAttributes[s.ordinal()]);
        }
        disruptions.record(disruptionCount, sourceAttributes);
    }

    /**
     * Half the interval's width in seconds, NaN where it guarantees nothing: unbounded, or a status (UNKNOWN,
     * DISRUPTED) that says the bounds are no guarantee, as a ClockBound segment read directly may give with a
     * finite interval.
     */
    static double halfWidthSeconds(TimeBounds b) {
        boolean trusted = b.status() == TimeBounds.Status.SYNCHRONIZED || b.status() == TimeBounds.Status.FREE_RUNNING;
        boolean bounded = b.earliestNanos() != Long.MIN_VALUE && b.latestNanos() != Long.MAX_VALUE;
        return trusted && bounded ? b.widthNanos() / 2e9 : Double.NaN;
    }

    /**
     * The kind of source a {@link BoundedClock#description()} names: its first word, e.g. {@code adjtimex} of
     * {@code "adjtimex, served at counter speed: ..."}, {@code clockbound} of {@code "clockbound /var/run/..."}.
     */
    static String sourceKind(String description) {
        int end = 0;
        while (end < description.length() && isWordChar(description.charAt(end))) {
            end++;
        }
        return end == 0 ? "unknown" : description.substring(0, end);
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '-';
    }

    /** Removes the callback: the instruments report nothing more. */
    @Override
    public void close() {
        callback.close();
    }

    @Override
    public String toString() {
        return "TimekeepingBoundsMetrics[" + sourceAttributes.get(SOURCE_KEY) + "]";
    }
}
