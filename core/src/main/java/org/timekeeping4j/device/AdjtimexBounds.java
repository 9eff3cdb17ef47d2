package org.timekeeping4j.device;

import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.SyncStatus;

/**
 * Bounds from the kernel's NTP state: [real - maxerror, real + maxerror], where maxerror is what the
 * synchronisation daemon last wrote plus the 500 us per second the kernel adds on its own (so no drift
 * growth is added here).
 *
 * <p>Status: {@link TimeBounds.Status#SYNCHRONIZED} while {@link SyncStatus#isSynchronized()} (maxerror
 * below 16 s), else {@link TimeBounds.Status#UNKNOWN}. Where adjtimex is refused (seccomp, ProtectClock=)
 * the status is UNKNOWN and the interval unbounded (Long.MIN_VALUE, Long.MAX_VALUE). Caveat: phc2sys
 * writes maxerror 0, which yields a zero-width interval that is not a real bound.
 *
 * <p>Allocates a little per call (adjtimex goes through {@link SyncStatus}); thread-safe.
 */
final class AdjtimexBounds implements BoundedClock {

    private final Supplier<SyncStatus> status;
    private final LongSupplier realtime;

    AdjtimexBounds() {
        this(SyncStatus::read, () -> KernelClocks.nanos(ClockId.REALTIME));
    }

    AdjtimexBounds(Supplier<SyncStatus> status, LongSupplier realtime) {
        this.status = status;
        this.realtime = realtime;
    }

    @Override
    public TimeBounds now(TimeBounds into) {
        SyncStatus s = status.get();
        long real = realtime.getAsLong();
        into.source = this;
        into.nanos = real;
        if (!s.isAvailable()) {
            into.earliest = Long.MIN_VALUE;
            into.latest = Long.MAX_VALUE;
            into.status = TimeBounds.Status.UNKNOWN;
            return into;
        }
        long bound = Math.multiplyExact(s.maxErrorMicros(), 1000L);
        into.earliest = real - bound;
        into.latest = real + bound;
        into.status = s.isSynchronized() ? TimeBounds.Status.SYNCHRONIZED : TimeBounds.Status.UNKNOWN;
        return into;
    }

    @Override
    public String description() {
        return "adjtimex";
    }

    @Override
    public void close() {
        // nothing held
    }
}
