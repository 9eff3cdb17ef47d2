package org.timekeeping4j.linux;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The IERS/IANA leap-second list that tzdata ships (leap-seconds.list), parsed strictly: TAI-UTC at a UTC instant,
 * the list's expiry, and its SHA-1 check. Immutable.
 *
 * <p>The format: a data line is {@code NTP-seconds TAI-UTC}, optionally followed by a {@code #} comment; NTP seconds
 * count from 1900 ({@link #NTP_TO_UNIX} before the Unix epoch). {@code #$ NTP-seconds} is the last update,
 * {@code #@ NTP-seconds} the expiry, {@code #h} five groups of hex digits: the SHA-1 of the digits of the
 * {@code #$} line, the {@code #@} line and every data line's two fields, in that order, whitespace and comments
 * left out (the IERS README in the list's own comments). Any other line starting with {@code #} is a comment.
 *
 * <p>Strict: any other line, a second {@code #$}, {@code #@} or {@code #h}, a data line not later than the one
 * before it, or a TAI-UTC that moves by other than one second is an error, one line naming the file and the line.
 * A list without {@code #@} or without data lines is an error too; one without {@code #h} is accepted, unchecked.
 */
public final class LeapSecondList {

    /** tzdata's copy. */
    public static final String DEFAULT_PATH = "/usr/share/zoneinfo/leap-seconds.list";
    /** Seconds from 1900-01-01 (NTP's era 0) to 1970-01-01: Unix seconds = NTP seconds - this. */
    public static final long NTP_TO_UNIX = 2_208_988_800L;
    /** The most digits a timestamp may have: NTP seconds fit in 10 until 2036; more is a typo, not a date. */
    private static final int MAX_DIGITS = 12;

    private final Path path;
    private final long[] leapUnixSeconds;
    private final int[] taiMinusUtc;
    private final long updatedUnixSeconds;
    private final long expiresUnixSeconds;
    private final String statedHash;
    private final String computedHash;

    private LeapSecondList(Path path, long[] leapUnixSeconds, int[] taiMinusUtc, long updatedUnixSeconds,
                           long expiresUnixSeconds, String statedHash, String computedHash) {
        this.path = path;
        this.leapUnixSeconds = leapUnixSeconds;
        this.taiMinusUtc = taiMinusUtc;
        this.updatedUnixSeconds = updatedUnixSeconds;
        this.expiresUnixSeconds = expiresUnixSeconds;
        this.statedHash = statedHash;
        this.computedHash = computedHash;
    }

    /**
     * Reads and parses the list at {@code path}.
     *
     * @return the list, or empty where no file is there (unknown, not an error)
     * @throws IOException              where the file exists but cannot be read
     * @throws IllegalArgumentException where it is malformed: one line, "PATH:LINE: what is wrong"
     */
    public static Optional<LeapSecondList> read(Path path) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(path, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(parse(path, lines));
    }

    /**
     * Parses the lines of a list.
     *
     * @param path  the file, for the messages
     * @param lines its lines, the first being line 1
     * @return the list
     * @throws IllegalArgumentException where it is malformed: one line, "PATH:LINE: what is wrong"
     */
    public static LeapSecondList parse(Path path, List<String> lines) {
        long[] leaps = new long[lines.size()];
        int[] offsets = new int[lines.size()];
        int n = 0;
        long updated = -1;
        long expires = -1;
        String hash = null;
        StringBuilder hashed = new StringBuilder();
        StringBuilder hashedData = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int number = i + 1;
            if (line.startsWith("#$") || line.startsWith("#@")) {
                String value = line.substring(2).strip();
                String what = line.startsWith("#$") ? "#$ (last update)" : "#@ (expiry)";
                if (line.startsWith("#$") ? updated >= 0 : expires >= 0) {
                    throw malformed(path, number, "a second " + what + " line");
                }
                long ntp = ntpSeconds(path, number, value, what);
                hashed.append(value);
                if (line.startsWith("#$")) {
                    updated = ntp;
                } else {
                    expires = ntp;
                }
            } else if (line.startsWith("#h")) {
                if (hash != null) {
                    throw malformed(path, number, "a second #h (hash) line");
                }
                hash = hash(path, number, line.substring(2).strip());
            } else if (line.startsWith("#") || line.isBlank()) {
                continue; // a comment
            } else {
                String data = line.indexOf('#') >= 0 ? line.substring(0, line.indexOf('#')) : line;
                String[] f = data.strip().split("[ \t]+");
                if (f.length != 2 || Character.isWhitespace(line.charAt(0))) {
                    throw malformed(path, number, "'" + line.strip() + "' is neither a data line (NTP-seconds"
                            + " TAI-UTC) nor a # comment");
                }
                long at = ntpSeconds(path, number, f[0], "NTP-seconds");
                if (!f[1].matches("[0-9]{1,3}")) {
                    throw malformed(path, number, "TAI-UTC '" + f[1] + "' is not a number of seconds");
                }
                int offset = Integer.parseInt(f[1]);
                if (n > 0 && at <= leaps[n - 1]) {
                    throw malformed(path, number, "NTP-seconds " + f[0] + " is not later than the line before");
                }
                if (n > 0 && Math.abs(offset - offsets[n - 1]) != 1) {
                    throw malformed(path, number, "TAI-UTC moves from " + offsets[n - 1] + " to " + offset
                            + " s: a leap second moves it by one");
                }
                leaps[n] = at;
                offsets[n] = offset;
                n++;
                hashedData.append(f[0]).append(f[1]);
            }
        }
        if (expires < 0) {
            throw malformed(path, lines.size(), "no #@ (expiry) line");
        }
        if (n == 0) {
            throw malformed(path, lines.size(), "no data line (NTP-seconds TAI-UTC)");
        }
        long[] unix = new long[n];
        for (int i = 0; i < n; i++) {
            unix[i] = leaps[i] - NTP_TO_UNIX;
        }
        return new LeapSecondList(path, unix, java.util.Arrays.copyOf(offsets, n),
                updated < 0 ? Long.MIN_VALUE : updated - NTP_TO_UNIX, expires - NTP_TO_UNIX, hash,
                sha1(hashed.append(hashedData).toString()));
    }

    private static long ntpSeconds(Path path, int line, String value, String what) {
        if (!value.matches("[0-9]{1," + MAX_DIGITS + "}")) {
            throw malformed(path, line, what + " '" + value + "' is not a number of NTP seconds");
        }
        return Long.parseLong(value);
    }

    /** The five groups of the #h line as 40 hex digits; a group may have lost its leading zeros (older lists). */
    private static String hash(Path path, int line, String value) {
        String[] groups = value.split("[ \t]+");
        StringBuilder sb = new StringBuilder();
        for (String g : groups) {
            if (!g.matches("[0-9a-fA-F]{1,8}")) {
                throw malformed(path, line, "#h '" + value + "' is not five groups of up to 8 hex digits");
            }
            sb.append("0".repeat(8 - g.length())).append(g.toLowerCase(java.util.Locale.ROOT));
        }
        if (groups.length != 5) {
            throw malformed(path, line, "#h '" + value + "' is not five groups of up to 8 hex digits");
        }
        return sb.toString();
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-1 in this JDK", e); // every JDK must have it
        }
    }

    private static IllegalArgumentException malformed(Path path, int line, String what) {
        return new IllegalArgumentException(path + ":" + line + ": " + what);
    }

    /** {@return the file it was read from} */
    public Path path() {
        return path;
    }

    /**
     * TAI-UTC at a UTC instant, as the list gives it. Past the expiry, the last value it gives: the list cannot say
     * whether a leap second came later.
     *
     * @param unixSeconds the instant, in seconds since the epoch (UTC, as CLOCK_REALTIME counts)
     * @return seconds, or empty before the list's first line (1972, when TAI-UTC became whole seconds)
     */
    public OptionalInt taiMinusUtcAt(long unixSeconds) {
        int i = java.util.Arrays.binarySearch(leapUnixSeconds, unixSeconds);
        int at = i >= 0 ? i : -i - 2; // the last leap at or before the instant
        return at < 0 ? OptionalInt.empty() : OptionalInt.of(taiMinusUtc[at]);
    }

    /** {@return the last TAI-UTC the list gives, in seconds} */
    public int lastTaiMinusUtc() {
        return taiMinusUtc[taiMinusUtc.length - 1];
    }

    /** {@return when the list expires (its #@ line)} */
    public Instant expires() {
        return Instant.ofEpochSecond(expiresUnixSeconds);
    }

    /** {@return whether the list has expired at this instant (its #@ instant or later)} */
    public boolean isExpiredAt(Instant now) {
        return now.getEpochSecond() >= expiresUnixSeconds;
    }

    /** {@return whether the list has expired now, by CLOCK_REALTIME} */
    public boolean isExpired() {
        return isExpiredAt(Instant.now());
    }

    /** {@return the list's last update (its #$ line), or empty where it has none} */
    public Optional<Instant> updated() {
        return updatedUnixSeconds == Long.MIN_VALUE ? Optional.empty()
                : Optional.of(Instant.ofEpochSecond(updatedUnixSeconds));
    }

    /** {@return whether the list states a hash (its #h line)} */
    public boolean hasHash() {
        return statedHash != null;
    }

    /** {@return whether its stated hash is the SHA-1 of its contents; false where it states none} */
    public boolean hashMatches() {
        return computedHash.equals(statedHash);
    }

    /** {@return the stated hash, 40 hex digits, or null where it states none} */
    public String statedHash() {
        return statedHash;
    }

    /** {@return the SHA-1 of the contents the hash covers, 40 hex digits} */
    public String computedHash() {
        return computedHash;
    }
}
