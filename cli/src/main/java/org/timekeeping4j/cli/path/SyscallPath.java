package org.timekeeping4j.cli.path;

import java.util.OptionalLong;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.linux.LinuxTime;

/** {@code syscall}: {@link Clocks#syscallNanos} (syscall(SYS_clock_gettime), never the vDSO). */
final class SyscallPath implements ClockPath {

    @Override
    public String name() {
        return "syscall";
    }

    @Override
    public String description() {
        return "Clocks.syscallNanos: the clock_gettime system call, bypassing the vDSO";
    }

    @Override
    public boolean serves(ClockId clock) {
        return LinuxTime.syscallClockGettimeErrno(clock.id()) == 0;
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return () -> Clocks.syscallNanos(clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return 0; // the kernel's own timekeeper, read under its seqcount: same time line as the vDSO
    }

    @Override
    public OptionalLong resolutionNanos(ClockId clock) {
        // clock_getres is the kernel's answer for the clock, whichever way it is read afterwards.
        return OptionalLong.of(Clocks.resolutionNanos(clock));
    }

    @Override
    public String callName(ClockId clock) {
        return "Clocks.syscallNanos";
    }
}
