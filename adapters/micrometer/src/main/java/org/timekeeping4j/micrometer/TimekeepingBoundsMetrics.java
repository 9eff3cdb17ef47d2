package org.timekeeping4j.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.Objects;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.TimeBounds;

/**
 * Publishes a {@link BoundedClock}'s bounds to Micrometer: how wide the interval around true time is, how far to
 * trust it and how often it was seen disrupted. Every meter is tagged {@code source} with the kind of source
 * (its {@link BoundedClock#description()}'s first word: {@code clockbound}, {@code chronyd}, {@code adjtimex},
 * {@code vmclock}), fixed when the meters are bound.
 *
 * <ul>
 *   <li>{@value #HALF_WIDTH} (gauge, seconds): half of latest - earliest, the most the clock's estimate can be
 *       off; NaN while the bounds guarantee nothing (unbounded, or status UNKNOWN or DISRUPTED).</li>
 *   <li>{@value #STATUS} (gauge, one per status, tag {@code status} = {@code synchronized}, {@code free_running},
 *       {@code disrupted} or {@code unknown}): 1 for the status now, 0 for the others.</li>
 *   <li>{@value #DISRUPTIONS} (function counter): the transitions into DISRUPTED these meters' reads saw (a first
 *       read that finds DISRUPTED counts). Meters sample only when read, so a disruption shorter than the scrape
 *       interval can pass unseen (the process's clock says DISRUPTED for one to two refresh periods, 0.25 to
 *       2 s).</li>
 * </ul>
 *
 * <pre>{@code
 * new TimekeepingBoundsMetrics().bindTo(registry);   // BoundedClock.system()
 * }</pre>
 *
 * <p><b>Assumptions and Guarantees.</b> Every meter samples the clock when it is read: one
 * {@link BoundedClock#now(TimeBounds)} into the binder's own holder, which allocates nothing and, for
 * {@link BoundedClock#system()}, makes no system call. Reads within {@value #SHARED_SAMPLE_NANOS} ns of a sample
 * reuse it, so the meters of one scrape agree (exactly one status is 1). The gauges hold the binder strongly: it
 * stays bound as long as the registry keeps its meters. Safe for any number of scraping threads.
 */
public final class TimekeepingBoundsMetrics implements MeterBinder {

    /** The half-width gauge's name. */
    public static final String HALF_WIDTH = "timekeeping.bounds.half.width";
    /** The status gauges' name. */
    public static final String STATUS = "timekeeping.bounds.status";
    /** The disruption counter's name. */
    public static final String DISRUPTIONS = "timekeeping.bounds.disruptions";
    /** How close together reads share one sample: well under any scrape interval, well over one scrape. */
    static final long SHARED_SAMPLE_NANOS = 1_000_000L;

    private final BoundedClock clock;
    private final long sharedSampleNanos;
    private final String source;

    // Guarded by this: scrapes may run on several threads, and a TimeBounds holder is one thread's (synchronized,
    // uncontended in practice: a scrape reads the meters one after the other).
    private final TimeBounds bounds = new TimeBounds();
    private boolean sampled;
    private long sampledAt;
    private TimeBounds.Status status;
    private double halfWidthSeconds = Double.NaN;
    private long disruptions;

    /**
     * Meters of the process's bounded clock, {@link BoundedClock#system()}.
     *
     * @throws DeviceException as {@link BoundedClock#system()}: a ClockBound segment that is unusable
     */
    public TimekeepingBoundsMetrics() throws DeviceException {
        this(BoundedClock.system());
    }

    /**
     * Meters of {@code clock} (tests give their own; the binder does not close it).
     *
     * @param clock the bounded clock to sample
     */
    public TimekeepingBoundsMetrics(BoundedClock clock) {
        this(clock, SHARED_SAMPLE_NANOS);
    }

    /** Tests of status transitions pass 0: every read samples. */
    TimekeepingBoundsMetrics(BoundedClock clock, long sharedSampleNanos) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sharedSampleNanos = sharedSampleNanos;
        this.source = sourceKind(clock.description());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("source", source);
        Gauge.builder(HALF_WIDTH, this, TimekeepingBoundsMetrics::sampledHalfWidth)
                .description("Half the width of the interval that contains true time; NaN while it guarantees nothing")
                .baseUnit("seconds")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        for (TimeBounds.Status s : TimeBounds.Status.values()) {
            Gauge.builder(STATUS, this, m -> m.sampledStatus() == s ? 1 : 0)
                    .description("1 for the bounded clock's status now, 0 for the others")
                    .tags(tags.and(Tag.of("status", statusTag(s))))
                    .strongReference(true)
                    .register(registry);
        }
        // FunctionCounter holds the binder weakly; the gauges above hold it strongly.
        FunctionCounter.builder(DISRUPTIONS, this, TimekeepingBoundsMetrics::sampledDisruptions)
                .description("Transitions of the bounded clock into DISRUPTED seen by these meters' reads")
                .tags(tags)
                .register(registry);
    }

    /**
     * The {@code status} tag's value for {@code status}.
     *
     * @param status a status
     * @return its name in lower case, e.g. {@code free_running}
     */
    public static String statusTag(TimeBounds.Status status) {
        return status.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The kind of source a {@link BoundedClock#description()} names: its first word, e.g. {@code adjtimex} of
     * {@code "adjtimex, served at counter speed: ..."}, {@code clockbound} of {@code "clockbound /var/run/..."}.
     *
     * @param description a bounded clock's description
     * @return its first word, {@code unknown} for an empty one
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

    private synchronized double sampledHalfWidth() {
        sample();
        return halfWidthSeconds;
    }

    private synchronized TimeBounds.Status sampledStatus() {
        sample();
        return status;
    }

    private synchronized double sampledDisruptions() {
        sample();
        return disruptions;
    }

    /** Reads the clock unless the last read is recent enough to share; counts a transition into DISRUPTED. */
    private void sample() {
        long at = System.nanoTime();
        if (sampled && at - sampledAt < sharedSampleNanos) {
            return;
        }
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
        if (now == TimeBounds.Status.DISRUPTED && status != TimeBounds.Status.DISRUPTED) {
            disruptions++;
        }
        status = now;
        halfWidthSeconds = half;
        sampled = true;
        sampledAt = at;
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

    @Override
    public String toString() {
        return "TimekeepingBoundsMetrics[" + source + "]";
    }
}
