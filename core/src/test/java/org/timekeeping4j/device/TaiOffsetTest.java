package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.linux.TaiCheck;
import org.timekeeping4j.serving.ServingReport;

/** TAI - UTC for the bounded clock: the list's, widened by the leap dates an expired list may have missed. */
class TaiOffsetTest {

    private static final long S = 1_000_000_000L;

    @Test
    void anExpiredListShouldBeWidenedByEveryLeapDateSinceItExpired() {
        Instant expired = Instant.parse("2026-06-28T00:00:00Z");
        assertThat(TaiOffset.leapDatesBetween(expired, Instant.parse("2026-06-30T23:59:59Z"))).isZero();
        assertThat(TaiOffset.leapDatesBetween(expired, Instant.parse("2026-07-01T00:00:00Z"))).isEqualTo(1);
        assertThat(TaiOffset.leapDatesBetween(expired, Instant.parse("2026-12-06T12:00:00Z"))).isEqualTo(1);
        assertThat(TaiOffset.leapDatesBetween(expired, Instant.parse("2027-01-01T00:00:00Z"))).isEqualTo(2);
        assertThat(TaiOffset.leapDatesBetween(expired, Instant.parse("2029-07-02T00:00:00Z"))).isEqualTo(7);

        TaiCheck stale = new TaiCheck(TaiCheck.Kind.DISAGREES, 0, 37, true, expired, "expired");
        TaiOffset t = TaiOffset.of(stale, Instant.parse("2026-12-06T12:00:00Z"), 0);
        assertThat(t.known()).isTrue();
        assertThat(t.offsetNanos()).isEqualTo(37 * S);
        assertThat(t.slackNanos()).isEqualTo(S);

        TaiCheck current = new TaiCheck(TaiCheck.Kind.AGREES, 37, 37, false, Instant.parse("2027-06-28T00:00:00Z"), "ok");
        assertThat(TaiOffset.of(current, Instant.parse("2026-12-06T12:00:00Z"), 0).slackNanos()).isZero();
        TaiCheck none = new TaiCheck(TaiCheck.Kind.NO_LIST, 0, TaiCheck.UNKNOWN, false, null, "no list");
        assertThat(TaiOffset.of(none, Instant.now(), 0).known()).isFalse();
    }

    /** A served clock whose anchor is a 10 us bound measured now. */
    private static ServedBounds served() {
        AtomicReference<ServedBounds.Anchor> next = new AtomicReference<>();
        ServedBounds served = new ServedBounds(new BoundSource() {
            @Override
            public ServedBounds.Anchor sample() {
                long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
                long real = Clocks.nanos(ClockId.REALTIME);
                return new ServedBounds.Anchor(raw, real - raw, 10_000, 50_000, TimeBounds.Status.SYNCHRONIZED,
                        60 * S, 3600 * S, "t");
            }

            @Override
            public int periodMillis() {
                return 1000;
            }

            @Override
            public String description() {
                return "t";
            }
        });
        served.refresh(false);
        return served;
    }

    @Test
    void theBoundsOnTaiShouldBeTheUtcBoundsPlusTheListsOffsetWhateverTheKernelSays() {
        ServedBounds clock = served();
        TimeBounds utc = clock.now(new TimeBounds());
        TimeBounds tai = clock.nowTai(new TimeBounds());
        TaiCheck check = ServingReport.tai();
        TaiOffset expected = TaiOffset.of(check, Instant.ofEpochSecond(0, utc.nanos()), 0);
        if (!expected.known()) { // no trusted list on this machine: TAI is not bounded, and says so
            assertThat(tai.status()).isEqualTo(TimeBounds.Status.UNKNOWN);
            assertThat(tai.widthNanos()).isEqualTo(Long.MAX_VALUE);
            return;
        }
        assertThat(tai.status()).isEqualTo(utc.status());
        long offset = tai.nanos() - utc.nanos(); // the reads are microseconds apart; the offset is whole seconds
        assertThat(Math.round(offset / 1e9) * S).isEqualTo(expected.offsetNanos());
        assertThat(tai.widthNanos() - utc.widthNanos()).isBetween(2 * expected.slackNanos(),
                2 * expected.slackNanos() + 1_000_000);
        // The kernel's CLOCK_TAI is only as right as its offset: where it disagrees with the list, the bounds on
        // TAI do not contain it.
        long kernelTai = Clocks.nanos(ClockId.TAI);
        if (check.disagrees() && Math.abs(check.errorSeconds()) * S > expected.slackNanos()) {
            assertThat(kernelTai < tai.earliestNanos() || kernelTai > tai.latestNanos())
                    .as("kernel TAI %d outside [%d, %d]", kernelTai, tai.earliestNanos(), tai.latestNanos()).isTrue();
        }
    }
}
