package org.timekeeping4j.timekeeper;

import org.timekeeping4j.clocksource.Clocksource;

/** A counter that returns exactly what the test sets, including values before cycle_last. */
final class ManualCounter extends Clocksource {
    private volatile long value;

    ManualCounter(int widthBits, long frequencyHz, long start) {
        super("manual", widthBits, frequencyHz, 300, true, true);
        this.value = start & mask();
    }

    void set(long v) {
        value = v & mask();
    }

    void add(long cycles) {
        value = (value + cycles) & mask();
    }

    @Override
    public long read() {
        return value;
    }
}
