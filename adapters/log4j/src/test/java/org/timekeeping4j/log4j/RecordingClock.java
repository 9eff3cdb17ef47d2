package org.timekeeping4j.log4j;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.core.time.PreciseClock;

/**
 * What the surefire configuration names as {@code log4j2.clock}: a real {@link TimekeepingLog4jClock} that
 * remembers every instant it handed to Log4j, so a test can tell its timestamps from Log4j's own clock's.
 */
public final class RecordingClock implements PreciseClock {

    /** The instant Log4j instantiated, for tests to ask what was configured. */
    static final AtomicReference<RecordingClock> CREATED = new AtomicReference<>();

    /** Every (epoch second, nano-of-second) handed out, in order. */
    static final Queue<long[]> HANDED_OUT = new ConcurrentLinkedQueue<>();

    private final TimekeepingLog4jClock delegate = new TimekeepingLog4jClock();

    public RecordingClock() {
        CREATED.compareAndSet(null, this);
    }

    @Override
    public long currentTimeMillis() {
        return delegate.currentTimeMillis();
    }

    @Override
    public void init(MutableInstant instant) {
        delegate.init(instant);
        HANDED_OUT.add(new long[] {instant.getEpochSecond(), instant.getNanoOfSecond()});
    }
}
