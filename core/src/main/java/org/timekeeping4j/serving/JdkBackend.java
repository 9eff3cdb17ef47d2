package org.timekeeping4j.serving;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.linux.ColdClockGettime;

/**
 * The JDK's clocks and libc's clock_gettime, for good: where the kernel path's stubs cannot be mapped (the JVM
 * denies this library native access, no executable memory, another platform). MONOTONIC and REALTIME as the JDK
 * reads them (System.nanoTime, Instant.now: clock_gettime of the same clocks), the others through libc
 * ({@link ColdClockGettime}), which refuses where native access is denied. The same reads serve every process until
 * its first discovery publishes a backend ({@link FastPath}'s own methods, which this class calls).
 */
final class JdkBackend extends Backend {

    private JdkBackend() {}

    /** Typed {@code Backend}: see {@link Backend} (verifying the caller loads no implementation). */
    static Backend create() {
        return new JdkBackend();
    }

    @Override
    long monotonic() {
        return FastPath.coldMonotonic();
    }

    @Override
    long realtime() {
        return FastPath.coldRealtime();
    }

    @Override
    long monotonicRaw() {
        return FastPath.coldCounter(ClockId.MONOTONIC_RAW);
    }

    @Override
    long boottime() {
        return FastPath.coldCounter(ClockId.BOOTTIME);
    }

    @Override
    long tai() {
        return FastPath.coldCounter(ClockId.TAI);
    }

    @Override
    long nanos(ClockId clock) {
        return FastPath.coldNanos(clock);
    }

    @Override
    long nanosUnordered(ClockId clock) {
        return FastPath.nanos(clock);
    }

    @Override
    long kernelNanos(ClockId clock) {
        return KernelPath.cold(clock);
    }

    @Override
    long ticks() {
        return KernelPath.cold(ClockId.MONOTONIC_RAW);
    }

    @Override
    void convert(long ticks, ClockId clock, TicksConverter into) {
        into.fromRawNanos(ticks, clock);
    }

    /** MONOTONIC and REALTIME by the JDK; the others by libc, or refused where it cannot be called. */
    @Override
    List<Diagnostics.Serving> clocks(Instant since) {
        if (FastPath.PLATFORM != null) {
            throw new UnsupportedOperationException(FastPath.PLATFORM);
        }
        String why = FastPath.reason();
        String libc = ColdClockGettime.unavailable();
        List<Diagnostics.Serving> clocks = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            clocks.add(new Diagnostics.Serving(c, false, c == ClockId.MONOTONIC || c == ClockId.REALTIME
                    ? "the JDK's clock (clock_gettime): " + why
                    : libc != null ? "unsupported: " + why : "libc clock_gettime: " + why, since));
        }
        return clocks;
    }

    @Override
    Diagnostics.VdsoData vdsoData() {
        return ServingReport.none(FastPath.reason(), null, "none");
    }
}
