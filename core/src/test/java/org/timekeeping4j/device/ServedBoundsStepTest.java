package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.testing.KernelClock;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.KernelVdsoTest;

/**
 * A set of REALTIME makes the served bounds DISRUPTED at the first read after it, before the refresher has woken:
 * the read compares the kernel's REALTIME - MONOTONIC with its anchor's. Steps this kernel's REALTIME back and
 * forth by a millisecond or more (ADJ_SETOFFSET), so it runs in a lab guest only
 * ({@link KernelClock#assumeLabGuest}; the QEMU lab's junit check); the steps cancel out.
 */
@Tag("lab")
class ServedBoundsStepTest {

    private static final long S = 1_000_000_000L;

    /** A source whose anchor is a 10 us bound measured at its sample, growing 50 ppm; it says it measured a set when told. */
    private static final class Fresh implements BoundSource {
        volatile boolean measuredSets;

        @Override
        public boolean measured(long setNanos) {
            return measuredSets;
        }

        @Override
        public ServedBounds.Anchor sample() {
            long raw = Clocks.nanos(ClockId.MONOTONIC_RAW);
            long real = Clocks.nanos(ClockId.REALTIME);
            return new ServedBounds.Anchor(raw, real - raw, 10_000, 50_000, TimeBounds.Status.SYNCHRONIZED, 60 * S,
                    3600 * S, "fresh");
        }

        @Override
        public int periodMillis() {
            return 1000;
        }

        @Override
        public String description() {
            return "fresh";
        }
    }

    @Test
    void theFirstReadAfterASetOfRealtimeShouldBeDisruptedUntilTheSourceMeasuredSince() {
        KernelClock.assumeLabGuest();
        KernelVdsoTest.assumeExactModePossible();
        Fresh source = new Fresh();
        ServedBounds served = new ServedBounds(source);
        TimeBounds b = new TimeBounds();
        int sets = 0;
        for (int i = 0; i < 20; i++) {
            served.refresh(false);
            assertThat(served.now(b).status()).as("set %d: before it", i).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            long step = (i % 2 == 0 ? 1 : -1) * (1_000_000L + i / 2 * 37_000L); // forward, then back: each pair cancels
            // ADJ_SETOFFSET steps by exactly this much. A clock_settime to a REALTIME read earlier steps by less,
            // the time between the two calls: a descheduled TCG guest made a 1 ms set one inside the source's bound.
            long leadBefore = KernelVdso.realtimeLead();
            KernelClock.clockAdjtime(KernelClock.CLOCK_REALTIME, KernelClock.ADJ_SETOFFSET | KernelClock.ADJ_NANO,
                    step, 0, 0, 0);
            assertThat(KernelVdso.realtimeLead() - leadBefore).as("set %d: REALTIME - MONOTONIC moved", i)
                    .isEqualTo(step);
            sets++;
            // No refresh between the set and this read: the read alone must see it.
            assertThat(served.now(b).status()).as("set %d (%+d ns): the first read after it", i, step)
                    .isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(b.widthNanos()).isEqualTo(Long.MAX_VALUE);
            // The refresher sees the set by the lead too (timerfd aside): a set larger than the source's bound that
            // the source has not measured holds DISRUPTED, however fresh its samples.
            source.measuredSets = false;
            served.refresh(false);
            assertThat(served.now(b).status()).as("set %d: the refresh that saw it (%s)", i, served.why())
                    .isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(served.why()).contains("REALTIME was set by").contains("has not measured yet");
            served.refresh(false);
            assertThat(served.now(b).status()).as("set %d: not measured yet", i).isEqualTo(TimeBounds.Status.DISRUPTED);
            // Once the source says it measured the set, the next sample measured after the set serves again.
            source.measuredSets = true;
            served.refresh(false);
            assertThat(served.now(b).status()).as("set %d: measured", i).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        }
        assertThat(sets).isEqualTo(20);
    }
}
