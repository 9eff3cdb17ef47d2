package org.timekeeping4j.tracking;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.machine.ClockGettimeStub;

/** This machine's kernel, as the {@link TrackingPolicy} reads it: clock_gettime, adjtimex, sysfs. */
final class LinuxKernel implements TrackingPolicy.Environment {

    private final Sample offsetBracket = new Sample();

    @Override
    public void bracket(Clocksource counter, ClockId clock, int tries, Sample into) {
        into.take(counter, clock.id(), tries);
    }

    @Override
    public void offsetBounds(ClockId base, ClockId other, int tries, long[] loHi) {
        offsetBracket.offset(base.id(), other.id(), tries, loHi);
    }

    @Override
    public long nanos(ClockId clock) {
        return ClockGettimeStub.clockGettimeNanos(clock.id());
    }

    @Override
    public TimexReading adjtimex() {
        try {
            return LinuxTime.clockAdjtimeRead(0);
        } catch (ErrnoException | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public String currentClocksource() {
        return KernelInfo.currentClocksource();
    }
}
