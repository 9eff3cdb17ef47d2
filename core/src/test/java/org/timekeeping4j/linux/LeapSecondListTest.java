package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leap-second list, parsed strictly from fixtures: tzdata's copy of the IERS list of 2025 (its hash as IERS
 * published it), an expired list of 2016, the 2025 list with one date altered (hash mismatch), and with a malformed
 * line.
 */
class LeapSecondListTest {

    static Path fixture(String name) {
        try {
            return Path.of(LeapSecondListTest.class.getResource("/leapseconds/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static LeapSecondList list(String name) throws IOException {
        return LeapSecondList.read(fixture(name)).orElseThrow();
    }

    private static long at(String instant) {
        return Instant.parse(instant).getEpochSecond();
    }

    @Test
    void shouldGiveTaiMinusUtcAtEachInstantFromTheFirstLeapOn() throws IOException {
        LeapSecondList l = list("iers-2025.list");
        assertThat(l.taiMinusUtcAt(at("1971-12-31T23:59:59Z"))).as("before the list's first line").isEmpty();
        assertThat(l.taiMinusUtcAt(at("1972-01-01T00:00:00Z"))).hasValue(10);
        assertThat(l.taiMinusUtcAt(at("2016-12-31T23:59:59Z"))).hasValue(36);
        assertThat(l.taiMinusUtcAt(at("2017-01-01T00:00:00Z"))).hasValue(37);
        assertThat(l.taiMinusUtcAt(at("2026-01-01T00:00:00Z"))).hasValue(37);
        assertThat(l.lastTaiMinusUtc()).isEqualTo(37);
        assertThat(l.path()).isEqualTo(fixture("iers-2025.list"));
    }

    @Test
    void shouldExpireAtItsExpiryLine() throws IOException {
        LeapSecondList l = list("iers-2025.list");
        assertThat(l.expires()).isEqualTo(Instant.parse("2026-06-28T00:00:00Z"));
        assertThat(l.updated()).hasValue(Instant.parse("2025-07-07T00:00:00Z"));
        assertThat(l.isExpiredAt(Instant.parse("2026-06-27T23:59:59Z"))).isFalse();
        assertThat(l.isExpiredAt(Instant.parse("2026-06-28T00:00:00Z"))).isTrue();
    }

    @Test
    void anExpiredListGivesTheLastOffsetItKnows() throws IOException {
        LeapSecondList l = list("expired-2016.list");
        assertThat(l.expires()).isEqualTo(Instant.parse("2016-12-28T00:00:00Z"));
        assertThat(l.isExpiredAt(Instant.parse("2020-01-01T00:00:00Z"))).isTrue();
        assertThat(l.taiMinusUtcAt(at("2020-01-01T00:00:00Z"))).as("it cannot know 2017's leap second").hasValue(36);
        assertThat(l.hashMatches()).isTrue();
    }

    @Test
    void shouldCheckTheHashIersPublished() throws IOException {
        LeapSecondList l = list("iers-2025.list");
        assertThat(l.hasHash()).isTrue();
        assertThat(l.statedHash()).isEqualTo("49db2447571e5e1b2f002a539c8da8e439b8e49e");
        assertThat(l.computedHash()).isEqualTo(l.statedHash());
        assertThat(l.hashMatches()).isTrue();
    }

    @Test
    void anAlteredListFailsItsHash() throws IOException {
        LeapSecondList l = list("hash-mismatch.list");
        assertThat(l.hasHash()).isTrue();
        assertThat(l.hashMatches()).isFalse();
        assertThat(l.computedHash()).isNotEqualTo(l.statedHash());
    }

    @Test
    void aMalformedLineIsOneLineNamingTheFileAndTheLine() {
        Path p = fixture("malformed.list");
        assertThatThrownBy(() -> LeapSecondList.read(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":112: TAI-UTC '35.5' is not a number of seconds");
    }

    @Test
    void aMissingFileIsUnknownNotAnError(@TempDir Path dir) throws IOException {
        assertThat(LeapSecondList.read(dir.resolve("leap-seconds.list"))).isEmpty();
    }

    /** The 2025 list's lines with {@code edit} applied: line numbers of the messages are 1-based. */
    private static String error(java.util.function.Consumer<List<String>> edit) throws IOException {
        List<String> lines = new ArrayList<>(java.nio.file.Files.readAllLines(fixture("iers-2025.list")));
        edit.accept(lines);
        try {
            LeapSecondList.parse(Path.of("x.list"), lines);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).doesNotContain("\n");
            return e.getMessage();
        }
        return "parsed";
    }

    private static int lineOf(List<String> lines, String start) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(start)) {
                return i;
            }
        }
        throw new IllegalStateException(start);
    }

    @Test
    void shouldRefuseEveryOtherShapeOfLine() throws IOException {
        assertThat(error(l -> l.add(10, "leap second at noon"))).isEqualTo("x.list:11: 'leap second at noon' is"
                + " neither a data line (NTP-seconds TAI-UTC) nor a # comment");
        assertThat(error(l -> l.add(10, "   3692217600 37"))).startsWith("x.list:11: '3692217600 37' is neither");
        assertThat(error(l -> l.add(10, "3692217600 37 38"))).startsWith("x.list:11: '3692217600 37 38' is neither");
        assertThat(error(l -> l.add(lineOf(l, "#@") + 1, "#@\t3991593600"))).isEqualTo("x.list:72: a second #@"
                + " (expiry) line");
        assertThat(error(l -> l.set(lineOf(l, "#@"), "#@ soon"))).isEqualTo("x.list:71: #@ (expiry) 'soon' is not a"
                + " number of NTP seconds");
        assertThat(error(l -> l.set(lineOf(l, "#$"), "#$ 99999999999999"))).startsWith("x.list:63: #$ (last update)");
        assertThat(error(l -> l.remove(lineOf(l, "#@")))).isEqualTo("x.list:119: no #@ (expiry) line");
        assertThat(error(l -> l.set(lineOf(l, "#h"), "#h 49db2447 571e5e1b"))).startsWith("x.list:120: #h"
                + " '49db2447 571e5e1b' is not five groups");
        assertThat(error(l -> l.add("#h\t49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e"))).isEqualTo("x.list:121: a"
                + " second #h (hash) line");
        assertThat(error(l -> l.removeIf(s -> s.matches("^[0-9].*")))).isEqualTo("x.list:92: no data line"
                + " (NTP-seconds TAI-UTC)");
    }

    @Test
    void shouldRefuseDatesOutOfOrderAndJumpsOfMoreThanOneSecond() throws IOException {
        assertThat(error(l -> l.set(lineOf(l, "3692217600"), "3644697600      37"))).isEqualTo("x.list:113:"
                + " NTP-seconds 3644697600 is not later than the line before");
        assertThat(error(l -> l.set(lineOf(l, "3692217600"), "3692217600      38"))).isEqualTo("x.list:113: TAI-UTC"
                + " moves from 36 to 38 s: a leap second moves it by one");
    }

    @Test
    void aListWithoutHashIsAcceptedUnchecked() throws IOException {
        assertThat(error(l -> l.remove(lineOf(l, "#h")))).isEqualTo("parsed");
        List<String> lines = new ArrayList<>(java.nio.file.Files.readAllLines(fixture("iers-2025.list")));
        lines.remove(lineOf(lines, "#h"));
        LeapSecondList l = LeapSecondList.parse(Path.of("x.list"), lines);
        assertThat(l.hasHash()).isFalse();
        assertThat(l.hashMatches()).isFalse();
    }

    @Test
    void aHashInCapitalsStillMatches() throws IOException {
        List<String> lines = new ArrayList<>(java.nio.file.Files.readAllLines(fixture("iers-2025.list")));
        lines.set(lineOf(lines, "#h"), "#h\t49DB2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e");
        assertThat(LeapSecondList.parse(Path.of("x.list"), lines).hashMatches()).as("hex digits in either case")
                .isTrue();
    }
}
