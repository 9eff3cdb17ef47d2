package org.timekeeping4j.device;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.timekeeping4j.linux.TaiCheck;
import org.timekeeping4j.serving.ServingReport;

/**
 * TAI - UTC for {@link BoundedClock#nowTai}: the leap-second list's, never the kernel's alone (the kernel's offset
 * is 0 until a daemon sets it). Where the list has expired, a leap second may have been inserted or deleted at each
 * end of June and of December since, so the offset is known to +- that many seconds ({@link #slackNanos}). Where no
 * trusted list gives one, unknown. Checked again a minute after the last check, on the reader that finds it due:
 * a file read of 5 KB and an adjtimex call once a minute, amortised; nothing allocated in between.
 *
 * @param offsetNanos TAI - UTC in ns; meaningless where not {@link #known}
 * @param slackNanos  how far the true offset may be from it (0 with a current list)
 * @param known       whether a trusted list gave an offset
 * @param why         the check's line ({@code Clocks.diagnostics().tai()})
 * @param recheckAt   REALTIME, ns, after which the check is made again
 */
record TaiOffset(long offsetNanos, long slackNanos, boolean known, String why, long recheckAt) {

    private static final long S = 1_000_000_000L;
    /** How long a check holds. */
    static final long RECHECK_NANOS = 60 * S;

    /** The last check; null before the first. Volatile: a check is published whole. */
    private static volatile TaiOffset current;

    /** {@return the offset at REALTIME {@code realNanos}, checked again where the last check is due} */
    static TaiOffset at(long realNanos) {
        TaiOffset t = current; // volatile load: pairs with the volatile store in recheck(); the record is immutable
        if (t == null || realNanos - t.recheckAt > 0 || t.recheckAt - realNanos > RECHECK_NANOS) { // due, or stepped
            t = recheck(realNanos);
        }
        return t;
    }

    private static synchronized TaiOffset recheck(long realNanos) {
        TaiOffset t = current;
        if (t != null && realNanos - t.recheckAt <= 0 && t.recheckAt - realNanos <= RECHECK_NANOS) {
            return t; // another reader checked meanwhile
        }
        t = of(ServingReport.tai(), Instant.ofEpochSecond(0, realNanos), realNanos + RECHECK_NANOS);
        current = t; // volatile store: pairs with the volatile load in at()
        return t;
    }

    /**
     * The offset a check gives at {@code now}.
     *
     * @param check     the kernel's offset against the list
     * @param now       the instant the offset is for
     * @param recheckAt REALTIME, ns, after which to check again
     * @return the offset; unknown where no trusted list gave one
     */
    static TaiOffset of(TaiCheck check, Instant now, long recheckAt) {
        if (check.listSeconds() == TaiCheck.UNKNOWN) {
            return new TaiOffset(0, 0, false, check.line(), recheckAt);
        }
        long slack = check.listExpired() ? leapDatesBetween(check.listExpires(), now) * S : 0;
        return new TaiOffset(check.listSeconds() * S, slack, true, check.line(), recheckAt);
    }

    /**
     * The ends of June and of December (where IERS inserts or deletes leap seconds) passed after {@code expires}
     * and up to {@code now}: the leap seconds an expired list may have missed.
     */
    static long leapDatesBetween(Instant expires, Instant now) {
        LocalDate from = LocalDate.ofInstant(expires, ZoneOffset.UTC);
        LocalDate to = LocalDate.ofInstant(now, ZoneOffset.UTC);
        long n = 0;
        for (int year = from.getYear(); year <= to.getYear(); year++) {
            for (LocalDate d : new LocalDate[] {LocalDate.of(year, 7, 1), LocalDate.of(year + 1, 1, 1)}) {
                if (d.isAfter(from) && !d.isAfter(to)) {
                    n++;
                }
            }
        }
        return n;
    }
}
