package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verdict for each kernel offset against each list, at fixed instants; nothing here changes the kernel's clock
 * or its offset (adjtimex is only read, with modes 0, by the two checks of the host's own).
 */
class TaiCheckTest {

    private static final Instant BEFORE_EXPIRY = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant AFTER_EXPIRY = Instant.parse("2026-07-01T00:00:00Z");

    private static LeapSecondList list(String name) throws IOException {
        return LeapSecondListTest.list(name);
    }

    @Test
    void aKernelAtTheListsOffsetAgreesAndIsConfirmed() throws IOException {
        TaiCheck t = TaiCheck.of(37, 0, list("iers-2025.list"), BEFORE_EXPIRY);
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.AGREES);
        assertThat(t.confirmed()).isTrue();
        assertThat(t.disagrees()).isFalse();
        assertThat(t.errorSeconds()).isZero();
        assertThat(t.listSeconds()).isEqualTo(37);
        assertThat(t.line()).isEqualTo("CLOCK_TAI is UTC + 37 s, as the leap-second list gives (valid until"
                + " 2026-06-28)");
    }

    @Test
    void aKernelWhoseOffsetNoDaemonSetDisagreesWithTheFix() throws IOException {
        TaiCheck t = TaiCheck.of(0, 0, list("iers-2025.list"), BEFORE_EXPIRY);
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.DISAGREES);
        assertThat(t.confirmed()).isFalse();
        assertThat(t.disagrees()).isTrue();
        assertThat(t.kernelSeconds()).isZero();
        assertThat(t.listSeconds()).isEqualTo(37);
        assertThat(t.errorSeconds()).as("CLOCK_TAI is 37 s behind TAI").isEqualTo(-37);
        assertThat(t.line()).isEqualTo("CLOCK_TAI is UTC + 0 s, the leap-second list says 37 s: a daemon must set it"
                + " (chrony: leapsectz right/UTC)");
        assertThat(t.line().length()).isLessThan(110);
    }

    @Test
    void anExpiredListIsStillComparedAndSaidExpiredWithItsLastOffset() throws IOException {
        TaiCheck agrees = TaiCheck.of(37, 0, list("iers-2025.list"), AFTER_EXPIRY);
        assertThat(agrees.kind()).isEqualTo(TaiCheck.Kind.AGREES);
        assertThat(agrees.listExpired()).isTrue();
        assertThat(agrees.confirmed()).as("an expired list confirms nothing").isFalse();
        assertThat(agrees.listExpires()).isEqualTo(Instant.parse("2026-06-28T00:00:00Z"));
        assertThat(agrees.line()).isEqualTo("CLOCK_TAI is UTC + 37 s, as the leap-second list gives; the list expired"
                + " 2026-06-28: update tzdata");
        TaiCheck disagrees = TaiCheck.of(0, 0, list("iers-2025.list"), AFTER_EXPIRY);
        assertThat(disagrees.kind()).isEqualTo(TaiCheck.Kind.DISAGREES);
        assertThat(disagrees.line()).isEqualTo("CLOCK_TAI is UTC + 0 s, the leap-second list (expired 2026-06-28)"
                + " last says 37 s: a daemon must set it (chrony: leapsectz right/UTC)");
    }

    @Test
    void anExpiredListCanBeTheOneThatIsWrong() throws IOException {
        // The 2016 list cannot know the leap second of 2017-01-01: a kernel at 37 s disagrees with its last 36.
        TaiCheck t = TaiCheck.of(37, 0, list("expired-2016.list"), Instant.parse("2020-01-01T00:00:00Z"));
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.DISAGREES);
        assertThat(t.listSeconds()).isEqualTo(36);
        assertThat(t.line()).contains("(expired 2016-12-28) last says 36 s");
        assertThat(TaiCheck.of(36, 0, list("expired-2016.list"), Instant.parse("2016-06-01T00:00:00Z")).confirmed())
                .isTrue();
    }

    @Test
    void aListThatFailsItsHashIsNotTrustedNorCompared() throws IOException {
        LeapSecondList l = list("hash-mismatch.list");
        TaiCheck t = TaiCheck.of(0, 0, l, BEFORE_EXPIRY);
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.BAD_LIST);
        assertThat(t.listSeconds()).isEqualTo(TaiCheck.UNKNOWN);
        assertThat(t.disagrees()).isFalse();
        assertThat(t.line()).isEqualTo("CLOCK_TAI is UTC + 0 s, unchecked: " + l.path() + ": its #h hash does not"
                + " match its contents, so it is not trusted (reinstall tzdata)");
    }

    @Test
    void aRefusedAdjtimexLeavesTheKernelsOffsetUnknown() throws IOException {
        TaiCheck t = TaiCheck.of(TaiCheck.UNKNOWN, Errno.EPERM, list("iers-2025.list"), BEFORE_EXPIRY);
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.NO_KERNEL);
        assertThat(t.confirmed()).isFalse();
        assertThat(t.disagrees()).isFalse();
        assertThat(t.listSeconds()).as("the list's offset, for a caller that widens by it").isEqualTo(37);
        assertThat(t.line()).isEqualTo("CLOCK_TAI's offset is unknown: adjtimex refused with "
                + Errno.describe(Errno.EPERM) + "; the leap-second list gives 37 s");
        TaiCheck neither = TaiCheck.without(TaiCheck.UNKNOWN, Errno.EPERM, TaiCheck.Kind.NO_LIST, "no list");
        assertThat(neither.kind()).isEqualTo(TaiCheck.Kind.NO_KERNEL);
        assertThat(neither.line()).endsWith("; and no list");
    }

    @Test
    void aClockBeforeTheListsFirstLineHasNoListOffset() throws IOException {
        TaiCheck t = TaiCheck.of(0, 0, list("iers-2025.list"), Instant.parse("1970-01-02T00:00:00Z"));
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.NO_LIST);
        assertThat(t.line()).contains("starts in 1972, after this clock's date 1970-01-02T00:00:00Z");
    }

    /** The host's own verdict, read afresh: its kernel offset is adjtimex's, whatever the host's is. */
    @Test
    void aMissingListIsUncheckedNotAnError(@TempDir Path dir) {
        assumeTrue(Platform.UNSUPPORTED_REASON == null, Platform.UNSUPPORTED_REASON);
        Path missing = dir.resolve("leap-seconds.list");
        TaiCheck t = TaiCheck.now(missing);
        String noList = "no leap-second list at " + missing + " (install tzdata)";
        if (t.kind() == TaiCheck.Kind.NO_KERNEL) {
            assertThat(t.line()).endsWith("; and " + noList);
            return;
        }
        assertThat(t.kind()).isEqualTo(TaiCheck.Kind.NO_LIST);
        assertThat(t.kernelSeconds()).isEqualTo(LinuxTime.clockAdjtimeRead(0).tai());
        assertThat(t.line()).isEqualTo("CLOCK_TAI is UTC + " + t.kernelSeconds() + " s, unchecked: " + noList);
    }

    @Test
    void aMalformedListIsUncheckedWithItsLine() {
        assumeTrue(Platform.UNSUPPORTED_REASON == null, Platform.UNSUPPORTED_REASON);
        Path p = LeapSecondListTest.fixture("malformed.list");
        TaiCheck t = TaiCheck.now(p);
        assertThat(t.kind()).isIn(TaiCheck.Kind.BAD_LIST, TaiCheck.Kind.NO_KERNEL);
        assertThat(t.confirmed()).isFalse();
        assertThat(t.line()).endsWith(p + ":112: TAI-UTC '35.5' is not a number of seconds");
    }

    @Test
    void everyVerdictIsOneLine() throws IOException {
        for (String name : new String[] {"iers-2025.list", "expired-2016.list", "hash-mismatch.list"}) {
            for (int kernel : new int[] {0, 36, 37, TaiCheck.UNKNOWN}) {
                for (Instant now : new Instant[] {BEFORE_EXPIRY, AFTER_EXPIRY}) {
                    assertThat(TaiCheck.of(kernel, Errno.EPERM, list(name), now).line()).doesNotContain("\n");
                }
            }
        }
    }
}
