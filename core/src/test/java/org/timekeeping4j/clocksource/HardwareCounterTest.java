package org.timekeeping4j.clocksource;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.linux.Platform;

class HardwareCounterTest {

    @Test
    void everyX86FlavourShouldCountForwardAtTheSelectedRate() {
        if (Platform.ARCH != Platform.Arch.X86_64 || !CounterSelector.selected().isHardware()) {
            return;
        }
        double hz = CounterSelector.selected().frequency().hz();
        for (CounterFlavour f : new CounterFlavour[] {CounterFlavour.X86_RDTSC, CounterFlavour.X86_LFENCE_RDTSC,
                CounterFlavour.X86_RDTSCP}) {
            HardwareCounter c = HardwareCounter.create(f, hz);
            assertThat(c.isOrdered()).isEqualTo(f != CounterFlavour.X86_RDTSC);
            long k0 = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
            long c0 = c.read();
            long last = c0;
            for (int i = 0; i < 100_000; i++) {
                long now = c.read();
                assertThat(now).isGreaterThanOrEqualTo(last);
                last = now;
            }
            long c1 = c.read();
            long k1 = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
            // The counter's elapsed time cannot exceed the kernel's bracket around it (plus 1% slack for rate).
            assertThat((c1 - c0) / hz * 1e9).isLessThanOrEqualTo((k1 - k0) * 1.01 + 1000);
        }
    }

    @Test
    void rdtscpShouldReportTheCpuNumberInTscAux() {
        if (Platform.ARCH != Platform.Arch.X86_64 || !CounterFlavour.X86_RDTSCP.mapped().ok()) {
            return;
        }
        HardwareCounter.Rdtscp c = (HardwareCounter.Rdtscp) HardwareCounter.create(CounterFlavour.X86_RDTSCP, 1e9);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment aux = arena.allocate(4);
            aux.set(ValueLayout.JAVA_INT, 0, -1);
            assertThat(c.read(aux)).isPositive();
            int cpu = aux.get(ValueLayout.JAVA_INT, 0) & 0xfff; // Linux: (node << 12) | cpu
            assertThat(cpu).isBetween(0, Runtime.getRuntime().availableProcessors() * 64);
        }
    }

    @Test
    void kernelCounterShouldBeMonotonicRawInNanoseconds() {
        KernelCounter k = new KernelCounter();
        long before = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
        long read = k.read();
        long after = Clocks.kernelNanos(ClockId.MONOTONIC_RAW);
        assertThat(read).isBetween(before, after);
        assertThat(k.multShift().toNanos(1_000_000_000L)).isEqualTo(1_000_000_000L);
    }
}
