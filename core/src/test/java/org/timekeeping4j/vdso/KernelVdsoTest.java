package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.testing.HostFacts;
import org.timekeeping4j.timekeeper.CounterClock;

/** Exact mode on this machine's kernel: recognised, enabled, and inside clock_gettime's brackets. */
public class KernelVdsoTest {

    /** Bracketed reads per clock (ExactClocksTest reads 10^7 per clock through the public API). */
    static final int READS = Integer.getInteger("tk4j.vdso.reads", 1_000_000);

    /** Skips unless exact mode serves here: the library's verdict ({@link HostFacts#assumeExactModeServes}). */
    public static void assumeExactModePossible() {
        HostFacts.assumeExactModeServes();
    }

    /**
     * The promise that keeps the gate above honest: where the kernel's clocksource is the TSC on x86_64, the vDSO
     * reads the counter in user space, and so does exact mode. (On kvm-clock it serves where the pvclock page is
     * stable; VclockHostTest and VclockDecisionTest hold it to that.)
     */
    @Test
    void shouldServeWhereTheKernelReadsTheTsc() {
        HostFacts.assumeX86("the promise to serve on the TSC");
        assumeTrue(HostFacts.currentClocksource().equals("tsc"),
                "the kernel's clocksource is " + HostFacts.currentClocksource() + ", not tsc");
        assertThat(KernelVdso.reason()).isNull();
        assertThat(KernelVdso.ENABLED).isTrue();
    }

    @Test
    void shouldRecogniseTheLayoutWhereItServes() {
        assumeExactModePossible();
        assertThat(KernelVdso.reason()).isNull();
        assertThat(KernelVdso.ENABLED).isTrue();
        assertThat(KernelVdso.state().layout()).isNotNull();
        KernelVdso.Fields raw = KernelVdso.fields(VdsoLayout.CS_RAW);
        // The raw line's counter: the TSC (10^8-10^10 Hz), kvm-clock's nanoseconds (10^9), arm64's (MHz).
        assertThat(raw.frequencyHz()).isBetween(1e6, 1e10);
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
