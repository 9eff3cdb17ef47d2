package org.timekeeping4j.device;

import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Snapshot;
import org.timekeeping4j.SyncStatus;

/**
 * The kernel's NTP state: maxerror as the daemon last wrote it, growing 500 ppm as the kernel grows it. The
 * kernel adds 500 us at each second's overflow; any other change is a daemon's write (an update). An update
 * rests on measurements made since the one before, so a bound's basis is the update before the last.
 */
final class AdjtimexSource implements BoundSource {
    private long lastMaxError = -1;
    private long lastRaw;
    private long updateRaw = Long.MIN_VALUE;
    private long previousUpdateRaw = Long.MIN_VALUE;

    @Override
    public ServedBounds.Anchor sample() {
        ServedBounds.Anchor a = read();
        return a.basedAt(previousUpdateRaw);
    }

    private ServedBounds.Anchor read() {
        Snapshot before = Clocks.snapshot(ClockId.REALTIME, new Snapshot());
        SyncStatus s = SyncStatus.read();
        long raw = before.rawNanos();
        long offset = before.nanos() - raw;
        if (!s.isAvailable()) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, "adjtimex: refused (seccomp, ProtectClock=)");
        }
        if (!s.isSynchronized()) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN,
                    "adjtimex: the kernel's clock is not synchronised (no daemon, or maxerror past 16 s)");
        }
        if (s.maxErrorMicros() == 0) {
            return ServedBounds.Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN,
                    "adjtimex: maxerror 0: no bound stated (phc2sys writes 0; chronyd, below 1 us)");
        }
        noteWrite(s.maxErrorMicros(), raw);
        long bound = Math.multiplyExact(s.maxErrorMicros(), 1000L);
        return new ServedBounds.Anchor(raw, offset, bound, ServedBounds.KERNEL_GROWTH_PPB, TimeBounds.Status.SYNCHRONIZED,
                2L * periodMillis() * 1_000_000L, Long.MAX_VALUE,
                "adjtimex: maxerror " + s.maxErrorMicros() + " us, synchronised");
    }

    /** Notes an update where maxerror changed otherwise than by the kernel's 500 us a second. */
    private void noteWrite(long maxErrorMicros, long raw) {
        long grown = maxErrorMicros - lastMaxError;
        long seconds = (raw - lastRaw) / 1_000_000_000L + 2; // second overflows since: at most this many
        if (lastMaxError >= 0 && (grown < 0 || grown % 500 != 0 || grown > 500 * seconds)) {
            previousUpdateRaw = updateRaw;
            updateRaw = lastRaw; // written after the last sample, before this one
        }
        lastMaxError = maxErrorMicros;
        lastRaw = raw;
    }

    @Override
    public int periodMillis() {
        return 1000;
    }

    @Override
    public String description() {
        return "adjtimex";
    }
}
