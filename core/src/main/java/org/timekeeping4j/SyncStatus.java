package org.timekeeping4j;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.IntFunction;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.TimexReading;

/**
 * The kernel's NTP state for CLOCK_REALTIME as adjtimex(2) reports it with modes = 0 (a read that
 * changes nothing and needs no privilege).
 *
 * <p>Where the call is refused (a seccomp filter, systemd's ProtectClock=yes, which blocks even
 * read-only calls) the status is {@linkplain #isAvailable() unavailable} and carries the errno;
 * nothing throws.
 */
public final class SyncStatus {

    /** maxerror at or above this many microseconds (16 s) means unsynchronised; see {@link #isSynchronized()}. */
    public static final long UNSYNCHRONISED_MAXERROR_MICROS = 16_000_000L;

    /** The kernel's clock state: adjtimex's return value. */
    public enum ClockState {
        /** TIME_OK: no leap second pending. */
        OK,
        /** TIME_INS: a leap second will be inserted at the end of the UTC day. */
        INSERT_LEAP,
        /** TIME_DEL: a leap second will be deleted at the end of the UTC day. */
        DELETE_LEAP,
        /** TIME_OOP: a leap second is being inserted now. */
        LEAP_IN_PROGRESS,
        /** TIME_WAIT: a leap second has just happened. */
        LEAP_OCCURRED,
        /** TIME_ERROR (TIME_BAD): the clock is not synchronised (STA_UNSYNC or a PPS error). */
        ERROR
    }

    /** The STA_* status bits (include/uapi/linux/timex.h). */
    public enum StatusFlag {
        /** STA_PLL: phase-locked loop updates enabled. */
        PLL(0x0001),
        /** STA_PPSFREQ: PPS signal frequency discipline enabled. */
        PPSFREQ(0x0002),
        /** STA_PPSTIME: PPS signal time discipline enabled. */
        PPSTIME(0x0004),
        /** STA_FLL: frequency-locked loop mode selected. */
        FLL(0x0008),
        /** STA_INS: insert a leap second at the end of the UTC day. */
        INS(0x0010),
        /** STA_DEL: delete a leap second at the end of the UTC day. */
        DEL(0x0020),
        /** STA_UNSYNC: the clock is unsynchronised (not the test: see {@link SyncStatus#isSynchronized()}). */
        UNSYNC(0x0040),
        /** STA_FREQHOLD: frequency held. */
        FREQHOLD(0x0080),
        /** STA_PPSSIGNAL: a PPS signal is present (read-only). */
        PPSSIGNAL(0x0100),
        /** STA_PPSJITTER: PPS jitter exceeded (read-only). */
        PPSJITTER(0x0200),
        /** STA_PPSWANDER: PPS wander exceeded (read-only). */
        PPSWANDER(0x0400),
        /** STA_PPSERROR: PPS calibration error (read-only). */
        PPSERROR(0x0800),
        /** STA_CLOCKERR: clock hardware fault (read-only). */
        CLOCKERR(0x1000),
        /** STA_NANO: offsets are in nanoseconds, not microseconds (read-only). */
        NANO(0x2000),
        /** STA_MODE: FLL mode, not PLL (read-only). */
        MODE(0x4000),
        /** STA_CLK: clock source (read-only). */
        CLK(0x8000);

        private final int bit;

        StatusFlag(int bit) {
            this.bit = bit;
        }

        /** {@return the bit's value in timex.status} */
        public int bit() {
            return bit;
        }
    }

    private final int errno;
    private final TimexReading timex;

    private SyncStatus(int errno, TimexReading timex) {
        this.errno = errno;
        this.timex = timex;
    }

    /**
     * Reads the kernel's NTP state now. Never throws for a refused call: see {@link #isAvailable()}.
     *
     * @return the status now, available or not
     */
    public static SyncStatus read() {
        return read(LinuxTime::clockAdjtimeRead);
    }

    /** Reads through {@code adjtime} (clock id 0 = CLOCK_REALTIME): the syscall boundary, replaceable in tests. */
    static SyncStatus read(IntFunction<TimexReading> adjtime) {
        try {
            return of(adjtime.apply(ClockId.REALTIME.id()));
        } catch (ErrnoException e) {
            return new SyncStatus(e.errno(), null);
        }
    }

    /** The status that a successful clock_adjtime returned (module-internal: TimexReading is not exported). */
    static SyncStatus of(TimexReading timex) {
        return new SyncStatus(0, timex);
    }

    /** {@return false where the kernel refused to answer; {@link #errno()} says how} */
    public boolean isAvailable() {
        return timex != null;
    }

    /** {@return 0, or the errno of the refused call} */
    public int errno() {
        return errno;
    }

    /** {@return one line: why the status is unavailable, or "available"} */
    public String availability() {
        if (isAvailable()) {
            return "available";
        }
        return "unavailable: adjtimex refused with " + Errno.describe(errno)
                + (errno == Errno.EPERM ? " (seccomp or systemd ProtectClock= blocks even read-only calls)" : "");
    }

    private TimexReading timex() {
        if (timex == null) {
            throw new IllegalStateException("sync status " + availability());
        }
        return timex;
    }

    /** {@return the clock state; {@link ClockState#ERROR} also for values the kernel may add later} */
    public ClockState state() {
        int s = timex().state();
        return s >= 0 && s < ClockState.values().length ? ClockState.values()[s] : ClockState.ERROR;
    }

    /** {@return the raw STA_* bits} */
    public int statusBits() {
        return timex().status();
    }

    /** {@return the STA_* bits, decoded} */
    public Set<StatusFlag> flags() {
        Set<StatusFlag> set = EnumSet.noneOf(StatusFlag.class);
        for (StatusFlag f : StatusFlag.values()) {
            if ((timex().status() & f.bit) != 0) {
                set.add(f);
            }
        }
        return set;
    }

    /** {@return maximum error in microseconds: the kernel adds 500 us to it every second until a daemon resets it} */
    public long maxErrorMicros() {
        return timex().maxerror();
    }

    /** {@return estimated error in microseconds} */
    public long estErrorMicros() {
        return timex().esterror();
    }

    /** {@return the remaining phase offset in nanoseconds (the kernel reports us unless STA_NANO is set)} */
    public long offsetNanos() {
        return (timex().status() & StatusFlag.NANO.bit) != 0 ? timex().offset() : timex().offset() * 1000;
    }

    /**
     * {@return the frequency offset in parts per billion (the kernel's ppm &lt;&lt; 16 scaled: ppb = freq * 1000 / 65536)}
     */
    public double frequencyPpb() {
        return timex().freq() * 1000.0 / 65536.0;
    }

    /** {@return the raw frequency offset, ppm &lt;&lt; 16, as the kernel holds it} */
    public long frequencyScaledPpm() {
        return timex().freq();
    }

    /** {@return TAI - UTC in seconds (0 unless a daemon such as chrony or ptp4l set it)} */
    public int taiOffsetSeconds() {
        return timex().tai();
    }

    /** The raw reading (module-internal: TimexReading is not exported; the accessors above are the API). */
    TimexReading timexReading() {
        return timex();
    }

    /**
     * {@return whether a daemon keeps the clock synchronised: maxerror below 16 s}
     *
     * <p>STA_UNSYNC alone is unreliable: chrony leaves it set unless rtcsync is configured, while the
     * kernel itself sets it once maxerror, growing 500 us every second without a daemon's update,
     * passes 16 s. maxerror is therefore the test, as systemd-timedated uses it. Note that phc2sys writes
     * maxerror 0, which is not a real bound. False when the status is unavailable.
     */
    public boolean isSynchronized() {
        return isAvailable() && timex.maxerror() < UNSYNCHRONISED_MAXERROR_MICROS;
    }

    @Override
    public String toString() {
        if (!isAvailable()) {
            return "SyncStatus[" + availability() + "]";
        }
        return "SyncStatus[state=" + state() + ", synchronized=" + isSynchronized() + ", flags=" + flags()
                + ", maxerror=" + maxErrorMicros() + "us, esterror=" + estErrorMicros() + "us, offset="
                + offsetNanos() + "ns, freq=" + String.format("%.3f", frequencyPpb()) + "ppb, tai="
                + taiOffsetSeconds() + "s]";
    }
}
