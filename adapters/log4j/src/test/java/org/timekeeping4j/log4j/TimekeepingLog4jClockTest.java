package org.timekeeping4j.log4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.core.util.ClockFactory;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/** Runs in surefire's forked JVM with {@code log4j2.clock=org.timekeeping4j.log4j.RecordingClock} (see pom.xml). */
class TimekeepingLog4jClockTest {

    /**
     * How far a fast-path read may stray outside the bracket of kernel reads taken around it: the fast
     * path's bound against the kernel plus slack. Scheduling delays need no slack, the brackets absorb them.
     */
    private static final long AGREEMENT_BOUND_NANOS = 50_000;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** Copies each event's instant at append time: Log4j may reuse the event object afterwards. */
    private static final class CapturingAppender extends AbstractAppender {
        final List<long[]> instants = new CopyOnWriteArrayList<>();

        CapturingAppender() {
            super("capturing", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            instants.add(new long[] {event.getInstant().getEpochSecond(), event.getInstant().getNanoOfSecond()});
        }
    }

    @Test
    void shouldStampLogEventsWithNanosecondsFromTimekeepingRealtime() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        CapturingAppender appender = new CapturingAppender();
        appender.start();
        configuration.addAppender(appender);
        configuration.getRootLogger().addAppender(appender, Level.ALL, null);
        context.updateLoggers();
        Logger logger = LogManager.getLogger(TimekeepingLog4jClockTest.class);
        try {
            long before = KernelClocks.nanos(ClockId.REALTIME);
            logger.info("bracketed");
            long after = KernelClocks.nanos(ClockId.REALTIME);

            assertThat(RecordingClock.CREATED.get()).as("the clock Log4j built from log4j2.clock").isNotNull();
            assertThat(appender.instants).hasSize(1);
            long[] stamped = appender.instants.get(0);
            assertThat(RecordingClock.HANDED_OUT)
                    .as("instants TimekeepingLog4jClock handed to Log4j")
                    .anySatisfy(handed -> assertThat(handed).containsExactly(stamped));
            long eventNanos = stamped[0] * NANOS_PER_SECOND + stamped[1];
            assertThat(eventNanos).isBetween(before - AGREEMENT_BOUND_NANOS, after + AGREEMENT_BOUND_NANOS);
        } finally {
            configuration.getRootLogger().removeAppender(appender.getName());
            context.updateLoggers();
            appender.stop();
        }
    }

    @Test
    void shouldBeTheClockLog4jConfiguresFromTheProperty() {
        assertThat(ClockFactory.getClock()).isInstanceOf(RecordingClock.class);
    }

    @Test
    void shouldSplitRealtimeIntoEpochSecondAndNanoOfSecondWithinKernelBrackets() {
        TimekeepingLog4jClock clock = new TimekeepingLog4jClock();
        MutableInstant instant = new MutableInstant();

        long before = KernelClocks.nanos(ClockId.REALTIME);
        clock.init(instant);
        long after = KernelClocks.nanos(ClockId.REALTIME);
        long millisBefore = KernelClocks.nanos(ClockId.REALTIME);
        long millis = clock.currentTimeMillis();
        long millisAfter = KernelClocks.nanos(ClockId.REALTIME);

        assertThat(instant.getNanoOfSecond()).isBetween(0, 999_999_999);
        assertThat(instant.getEpochSecond() * NANOS_PER_SECOND + instant.getNanoOfSecond())
                .isBetween(before - AGREEMENT_BOUND_NANOS, after + AGREEMENT_BOUND_NANOS);
        assertThat(millis).isBetween(
                (millisBefore - AGREEMENT_BOUND_NANOS) / 1_000_000, (millisAfter + AGREEMENT_BOUND_NANOS) / 1_000_000);
    }
}
