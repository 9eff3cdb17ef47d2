package org.timekeeping4j.stress;

import org.timekeeping4j.clocksource.Clocksource;

/** A 1 GHz counter that reads a value the test sets before the actors run: conversions are exact. */
final class FixedCounter extends Clocksource {
    private volatile long value;

    FixedCounter(long value) {
        super("fixed", 64, 1e9, 300, true, true);
        this.value = value;
    }

    void set(long v) {
        value = v;
    }

    @Override
    public long read() {
        return value;
    }
}
