package org.timekeeping4j.cli.path;

import java.util.OptionalLong;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/** {@code kernel}: {@link Clocks#kernelNanos} (libc clock_gettime, served by the vDSO where the kernel can). */
final class KernelPath implements ClockPath {

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public String description() {
        return "Clocks.kernelNanos: libc clock_gettime (vDSO)";
    }

    @Override
    public boolean serves(ClockId clock) {
        return Clocks.isSupported(clock);
    }

    @Override
    public ClockReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        return () -> Clocks.kernelNanos(clock);
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return 0; // the reference itself
    }

    @Override
    public OptionalLong resolutionNanos(ClockId clock) {
        return OptionalLong.of(Clocks.resolutionNanos(clock));
    }

    @Override
    public String callName(ClockId clock) {
        return "Clocks.kernelNanos";
    }
}
