package org.timekeeping4j.cli.path;

import java.time.Instant;
import org.timekeeping4j.ClockId;

/**
 * {@code jdk}: the JDK's own clocks, as nanoseconds. HotSpot on Linux reads CLOCK_MONOTONIC for
 * {@code System.nanoTime} (os::javaTimeNanos) and CLOCK_REALTIME for {@code Instant.now} (os::javaTimeSystemUTC),
 * both through clock_gettime, so both agree with the kernel path exactly (bound 0).
 *
 * <p>{@code jdk-millis} is {@code System.currentTimeMillis} for REALTIME: it truncates to the millisecond, so
 * it may fall up to 999,999 ns before the kernel's bracket.
 */
final class JdkPath implements ClockPath {

    private final boolean millis;

    JdkPath(boolean millis) {
        this.millis = millis;
    }

    @Override
    public String name() {
        return millis ? "jdk-millis" : "jdk";
    }

    @Override
    public String description() {
        return millis ? "System.currentTimeMillis for REALTIME, as ns"
                : "nanoTime, Instant.now, the MXBeans' CPU times, as ns";
    }

    @Override
    public boolean serves(ClockId clock) {
        return clock == ClockId.REALTIME || (!millis && clock == ClockId.MONOTONIC);
    }

    @Override
    public PathReader reader(ClockId clock) {
        ClockPaths.requireServed(this, clock);
        if (millis) {
            return () -> System.currentTimeMillis() * 1_000_000L;
        }
        if (clock == ClockId.MONOTONIC) {
            return System::nanoTime;
        }
        return JdkPath::instantNowNanos;
    }

    private static long instantNowNanos() {
        Instant now = Instant.now(); // allocates unless escape analysis removes it (it usually does once compiled)
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public long agreementBoundNanos(ClockId clock) {
        return millis ? 999_999L : 0L;
    }

    @Override
    public String callName(ClockId clock) {
        if (millis) {
            return "System.currentTimeMillis";
        }
        return clock == ClockId.MONOTONIC ? "System.nanoTime" : "Instant.now";
    }
}
