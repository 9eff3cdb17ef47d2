package org.timekeeping4j.simulation.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.config.CounterMode;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.ClockGettimeStub;

/**
 * The counter selection as a real arm64 kernel would drive it, through CounterSelector's environment seam:
 * clocksource arch_sys_counter, a cntfrq_el0, HWCAP2 bits, erratum-affected counters. The counters are
 * stand-ins that follow CLOCK_MONOTONIC_RAW at 62.5 MHz (any architecture), except in the last test, which
 * reads the real arm64 stubs (aarch64 only, emulated or not).
 */
class Arm64SelectionTest {

    private static final double HZ = 62_500_000;

    /** 62.5 MHz, following CLOCK_MONOTONIC_RAW: 16 ns a tick. */
    private static long standIn() {
        return ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC_RAW.id()) / 16;
    }

    private static CounterSelectorTest.Fake arm64Kernel() {
        CounterSelectorTest.Fake env = new CounterSelectorTest.Fake();
        env.machine = "aarch64";
        env.clocksource = "arch_sys_counter";
        env.flags = java.util.Set.of("fp", "asimd", "evtstrm");
        env.hwcap2 = 0;
        env.errata = List.of();
        env.stated = Optional.of(new Frequency(HZ, 0, "cntfrq_el0"));
        env.fakeCounters = f -> Arm64SelectionTest::standIn;
        return env;
    }

    @Test
    void anArm64KernelOnTheArchTimerShouldReadIsbCntvctAtCntfrq() {
        CounterSelectorTest.Fake env = arm64Kernel();
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.rejected()).isEmpty();
        assertThat(env.created).containsExactly(CounterRead.A64_ISB_CNTVCT, CounterRead.A64_CNTVCT);
        assertThat(s.clocksource().name()).isEqualTo("isb;mrs cntvct_el0");
        assertThat(s.clocksource().isOrdered()).isTrue();
        assertThat(s.ticks().name()).isEqualTo("mrs cntvct_el0"); // the cheap read for ticks
        assertThat(s.frequency()).isEqualTo(new Frequency(HZ, 0, "cntfrq_el0"));
        assertThat(env.asked).doesNotContain(CounterRead.A64_CNTVCTSS); // no ECV: never mapped, never read
    }

    @Test
    void featEcvShouldTryTheSelfSynchronisedCounterFirst() {
        CounterSelectorTest.Fake env = arm64Kernel();
        env.hwcap2 = Arch.HWCAP2_ECV | 1; // with another bit set too
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.clocksource().name()).isEqualTo("mrs cntvctss_el0");
        assertThat(env.created.getFirst()).isEqualTo(CounterRead.A64_CNTVCTSS);
    }

    @Test
    void aBrokenCntvctssShouldFallToIsbCntvct() {
        CounterSelectorTest.Fake env = arm64Kernel();
        env.hwcap2 = Arch.HWCAP2_ECV;
        AtomicLong n = new AtomicLong();
        LongSupplier backwards = () -> n.incrementAndGet() % 5 == 0 ? 0 : standIn();
        env.fakeCounters = f -> f == CounterRead.A64_CNTVCTSS ? backwards : Arm64SelectionTest::standIn;
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.clocksource().name()).isEqualTo("isb;mrs cntvct_el0");
        assertThat(s.rejected()).singleElement().satisfies(r -> {
            assertThat(r.candidate()).isEqualTo("mrs cntvctss_el0");
            assertThat(r.reason()).contains("went backwards");
        });
    }

    @Test
    void anErratumAffectedCounterShouldBeRefusedAsTheKernelRefusesItForTheVdso() {
        CounterSelectorTest.Fake env = arm64Kernel();
        env.errata = List.of("Cortex-A73 (cpu0) has arch-timer erratum 858921");
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.clocksource()).isInstanceOf(KernelCounter.class);
        assertThat(s.rejected()).singleElement().extracting(Rejection::reason).asString()
                .contains("858921").contains("keeps its vDSO off it");
        assertThat(env.asked).isEmpty(); // refused before any counter is read
    }

    @Test
    void anotherArm64ClocksourceShouldBeRefused() {
        CounterSelectorTest.Fake env = arm64Kernel();
        env.clocksource = "tsc"; // what an emulated arm64 sees: the host's clocksource through sysfs
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.clocksource()).isInstanceOf(KernelCounter.class);
        assertThat(s.rejected().getFirst().reason()).contains("is tsc, not arch_sys_counter");
    }

    @Test
    void aWrongCntfrqShouldGiveWayToCalibration() {
        CounterSelectorTest.Fake env = arm64Kernel();
        env.stated = Optional.of(new Frequency(HZ * 1.001, 0, "cntfrq_el0"));
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        assertThat(s.clocksource().name()).isEqualTo("isb;mrs cntvct_el0");
        assertThat(s.frequency().source()).startsWith("calibrated");
        assertThat(Math.abs(s.frequency().ppmFrom(HZ))).isLessThan(CounterSelector.SELF_TEST_PPM);
        assertThat(s.rejected()).extracting(Rejection::candidate).containsExactly("cntfrq_el0 frequency");
    }

    @Test
    void theRealArm64StubsShouldPassTheSelfTestUnderAnArchTimerKernel() {
        assumeTrue(Arch.HERE == Arch.AARCH64, "reads the arm64 counter stubs: aarch64 only");
        CounterSelectorTest.Fake env = arm64Kernel();
        env.fakeCounters = null; // the real stubs and the real cntfrq_el0
        env.hwcap2 = env.real.hwcap2();
        env.stated = env.real.statedFrequency(); // empty where cntfrq_el0 reads 0 (qemu 10)
        // The self-test compares the counter's rate with CLOCK_MONOTONIC_RAW's over a short baseline; under
        // emulation every read is a slow translated call, and one descheduling inside the baseline (seen in CI:
        // 4,900 ppm off once, with nothing steering the clock) fails it. Three selections: a stub that cannot
        // pass fails all three.
        CounterSelection s = CounterSelector.select(CounterMode.AUTO, env);
        for (int attempt = 1; attempt < 3 && !s.isHardware(); attempt++) {
            s = CounterSelector.select(CounterMode.AUTO, env);
        }
        assertThat(s.isHardware()).as(s.rejected().toString()).isTrue();
        assertThat(s.readFlavour()).isIn("isb;mrs cntvct_el0", "mrs cntvctss_el0");
        assertThat(s.ticks()).isInstanceOf(HardwareCounter.class);
        assertThat(((HardwareCounter) s.ticks()).counterRead()).isEqualTo(CounterRead.A64_CNTVCT);
        long a = s.clocksource().read();
        long b = s.ticks().read();
        long c = s.clocksource().read();
        assertThat(b).isBetween(a, c);
    }
}
