package org.timekeeping4j.linux;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The kernel's TAI offset (adjtimex's {@code tai}: CLOCK_TAI minus CLOCK_REALTIME) against the leap-second list's
 * TAI-UTC now, in one verdict and one line with the fix. The kernel's offset stays 0 until a daemon sets it
 * (chrony's {@code leapsectz right/UTC}); CLOCK_TAI is then UTC, 37 s from TAI. Reads only: adjtimex with modes 0
 * and the list's file.
 *
 * <p>An expired list is still compared, with the last TAI-UTC it gives, and the line says it expired. A list
 * whose hash does not match its contents is not trusted, nor compared.
 *
 * @param kind          the verdict
 * @param kernelSeconds the kernel's TAI offset, or {@link #UNKNOWN} where adjtimex refused
 * @param listSeconds   TAI-UTC the list gives now (the last it gives where expired), or {@link #UNKNOWN} where no
 *                      trusted list gives one
 * @param listExpired   whether the list has expired (false where there is none)
 * @param listExpires   when the list expires, or null where there is none
 * @param line          the verdict in one line, with the fix where one is needed
 */
public record TaiCheck(Kind kind, int kernelSeconds, int listSeconds, boolean listExpired, Instant listExpires,
                       String line) {

    /** An offset nobody gave. */
    public static final int UNKNOWN = Integer.MIN_VALUE;

    /** The fix for a kernel whose offset is not TAI-UTC. */
    static final String FIX = "a daemon must set it (chrony: leapsectz right/UTC)";

    /** The verdicts. */
    public enum Kind {
        /** The kernel's offset is what the list gives: CLOCK_TAI is TAI. */
        AGREES,
        /** The kernel's offset is not what the list gives: CLOCK_TAI is off by the difference. */
        DISAGREES,
        /** No list to compare with (none at the path, or the clock before its first line). */
        NO_LIST,
        /** The list is malformed, unreadable, fails its hash, or its path is misconfigured. */
        BAD_LIST,
        /** adjtimex refused: the kernel's offset is unknown. */
        NO_KERNEL
    }

    /** {@return true where CLOCK_TAI is TAI by a current list: the kernel agrees with a list not expired} */
    public boolean confirmed() {
        return kind == Kind.AGREES && !listExpired;
    }

    /** {@return true where the kernel's offset and the list's differ: CLOCK_TAI is off by {@link #errorSeconds()}} */
    public boolean disagrees() {
        return kind == Kind.DISAGREES;
    }

    /** {@return the kernel's offset minus the list's: how far CLOCK_TAI is from TAI; 0 unless it disagrees} */
    public int errorSeconds() {
        return disagrees() ? kernelSeconds - listSeconds : 0;
    }

    /**
     * The check now: adjtimex and the list read afresh. Costs a system call and a read of a 5 KB file: for
     * diagnostics, not for a read of a clock ({@link #of} takes what a caller already holds).
     *
     * @param list the leap-second list's file
     * @return the verdict
     */
    public static TaiCheck now(Path list) {
        Optional<LeapSecondList> read;
        try {
            read = LeapSecondList.read(list);
        } catch (IOException e) {
            return now(list + ": cannot be read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            return now(e.getMessage());
        }
        int[] kernel = kernel();
        return read.isPresent() ? of(kernel[0], kernel[1], read.get(), Instant.now())
                : without(kernel[0], kernel[1], Kind.NO_LIST, "no leap-second list at " + list + " (install tzdata)");
    }

    /**
     * The check now where no list can be read: the kernel's offset with why there is no list.
     *
     * @param listProblem one line: a malformed line, an unreadable file, a misconfigured path
     * @return a {@link Kind#BAD_LIST} verdict, or {@link Kind#NO_KERNEL} where adjtimex refused too
     */
    public static TaiCheck now(String listProblem) {
        int[] kernel = kernel();
        return without(kernel[0], kernel[1], Kind.BAD_LIST, listProblem);
    }

    /** {tai, 0}, or {UNKNOWN, errno} where adjtimex refused. */
    private static int[] kernel() {
        try {
            return new int[] {LinuxTime.clockAdjtimeRead(0).tai(), 0};
        } catch (ErrnoException e) {
            return new int[] {UNKNOWN, e.errno()};
        }
    }

    /**
     * Compares a kernel's offset with a list.
     *
     * @param kernelSeconds the kernel's TAI offset (adjtimex's tai), or {@link #UNKNOWN}
     * @param kernelErrno   where it is unknown, the errno adjtimex refused with
     * @param list          the list
     * @param now           the instant to compare at (UTC)
     * @return the verdict
     */
    public static TaiCheck of(int kernelSeconds, int kernelErrno, LeapSecondList list, Instant now) {
        if (list.hasHash() && !list.hashMatches()) {
            return without(kernelSeconds, kernelErrno, Kind.BAD_LIST, list.path() + ": its #h hash does not match"
                    + " its contents, so it is not trusted (reinstall tzdata)");
        }
        OptionalInt given = list.taiMinusUtcAt(now.getEpochSecond());
        if (given.isEmpty()) {
            return without(kernelSeconds, kernelErrno, Kind.NO_LIST, list.path() + " starts in 1972, after this"
                    + " clock's date " + now);
        }
        int listSeconds = given.getAsInt();
        boolean expired = list.isExpiredAt(now);
        String date = LocalDate.ofInstant(list.expires(), ZoneOffset.UTC).toString();
        if (kernelSeconds == UNKNOWN) {
            return new TaiCheck(Kind.NO_KERNEL, UNKNOWN, listSeconds, expired, list.expires(), "CLOCK_TAI's offset"
                    + " is unknown: " + refusal(kernelErrno) + "; the leap-second list " + (expired ? "(expired "
                    + date + ") last gives " : "gives ") + listSeconds + " s");
        }
        String line;
        Kind kind;
        if (kernelSeconds == listSeconds) {
            kind = Kind.AGREES;
            line = "CLOCK_TAI is UTC + " + kernelSeconds + " s, as the leap-second list gives" + (expired
                    ? "; the list expired " + date + ": update tzdata" : " (valid until " + date + ")");
        } else {
            kind = Kind.DISAGREES;
            line = "CLOCK_TAI is UTC + " + kernelSeconds + " s, the leap-second list " + (expired ? "(expired " + date
                    + ") last says " : "says ") + listSeconds + " s: " + FIX;
        }
        return new TaiCheck(kind, kernelSeconds, listSeconds, expired, list.expires(), line);
    }

    /**
     * The verdict without a list to compare with.
     *
     * @param kernelSeconds the kernel's TAI offset, or {@link #UNKNOWN}
     * @param kernelErrno   where it is unknown, the errno adjtimex refused with
     * @param kind          {@link Kind#NO_LIST} or {@link Kind#BAD_LIST}
     * @param why           why there is no list, one line
     * @return the verdict
     */
    public static TaiCheck without(int kernelSeconds, int kernelErrno, Kind kind, String why) {
        if (kernelSeconds == UNKNOWN) {
            return new TaiCheck(Kind.NO_KERNEL, UNKNOWN, UNKNOWN, false, null, "CLOCK_TAI's offset is unknown: "
                    + refusal(kernelErrno) + "; and " + why);
        }
        return new TaiCheck(kind, kernelSeconds, UNKNOWN, false, null, "CLOCK_TAI is UTC + " + kernelSeconds
                + " s, unchecked: " + why);
    }

    private static String refusal(int errno) {
        return "adjtimex refused with " + Errno.describe(errno);
    }
}
