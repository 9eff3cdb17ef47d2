package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.timekeeper.CounterClock;

/** Exact mode on this machine's kernel: recognised, enabled, and inside clock_gettime's brackets. */
public class KernelVdsoTest {

    /** Bracketed reads per clock (ExactClocksTest reads 10^7 per clock through the public API). */
    static final int READS = Integer.getInteger("tk4j.vdso.reads", 1_000_000);

    public static void assumeExactModePossible() {
        // On x86_64 with the kernel on tsc exact mode must serve (shouldBeEnabled... asserts it); elsewhere it
        // serves where discovery validates it, and these tests then run too.
        assumeTrue("x86_64".equals(Platform.ARCH) || KernelVdso.ENABLED,
                "exact mode does not serve on this " + Platform.ARCH + " JVM: " + KernelVdso.reason());
        if (!"x86_64".equals(Platform.ARCH)) {
            return;
        }
        assumeTrue(KernelInfo.currentClocksource().equals("tsc"),
                "the kernel's clocksource is " + KernelInfo.currentClocksource() + ", not tsc: its vDSO falls back");
    }

    @Test
    void shouldBeEnabledWhereTheKernelReadsTheTsc() {
        assumeExactModePossible();
        assertThat(KernelVdso.reason()).isNull();
        assertThat(KernelVdso.ENABLED).isTrue();
        assertThat(KernelVdso.state().layout()).isNotNull();
        KernelVdso.Fields raw = KernelVdso.fields(VdsoLayout.CS_RAW);
        assertThat(raw.frequencyHz()).isBetween(1e8, 1e10);
    }

    @Test
    void everyReadLiesWithinItsBracketOfKernelReads() {
        assumeExactModePossible();
        for (CounterClock c : CounterClock.values()) {
            int id = c.clock().id();
            long violations = 0;
            long fallbacks = 0;
            for (int i = 0; i < READS; i++) {
                long k0 = ClockGettimeStub.clockGettimeNanos(id);
                long v = KernelVdso.read(c);
                long k1 = ClockGettimeStub.clockGettimeNanos(id);
                if (v == VdsoStub.FALLBACK) {
                    fallbacks++;
                } else if (v - k0 < 0 || k1 - v < 0) {
                    violations++;
                }
            }
            assertThat(violations).as(c + ": reads outside [k0, k1] of " + READS).isZero();
            assertThat(fallbacks).as(c + ": fallbacks").isLessThan(READS / 1000 + 1);
        }
    }
}
