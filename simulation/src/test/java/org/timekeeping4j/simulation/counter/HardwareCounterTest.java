package org.timekeeping4j.simulation.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.Stubs;

class HardwareCounterTest {

    @Test
    void everyX86FlavourShouldCountForwardAtTheSelectedRate() {
        assumeTrue(Arch.HERE == Arch.X86_64, "x86 stubs: x86_64 only (everyArm64FlavourShouldCountForward runs the arm64 ones)");
        assumeTrue(CounterSelector.selected().isHardware(), "no trusted TSC here: " + CounterSelector.selected().rejected());
        double hz = CounterSelector.selected().frequency().hz();
        for (CounterRead f : new CounterRead[] {CounterRead.X86_RDTSC, CounterRead.X86_LFENCE_RDTSC,
                CounterRead.X86_RDTSCP}) {
            HardwareCounter c = HardwareCounter.create(f, hz);
            assertThat(c.isOrdered()).isEqualTo(f != CounterRead.X86_RDTSC);
            long k0 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
            long c0 = c.read();
            long last = c0;
            for (int i = 0; i < 100_000; i++) {
                long now = c.read();
                assertThat(now).isGreaterThanOrEqualTo(last);
                last = now;
            }
            long c1 = c.read();
            long k1 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
            // The counter's elapsed time cannot exceed the kernel's bracket around it (plus 1% slack for rate).
            assertThat((c1 - c0) / hz * 1e9).isLessThanOrEqualTo((k1 - k0) * 1.01 + 1000);
        }
    }

    /**
     * The rdtscp stub that keeps TSC_AUX stores it where it is told, four bytes and no more, and reads the counter
     * between two ordered reads. What TSC_AUX holds is the host's business (a hypervisor may leave its own CPU
     * number there: 233 on a 2-vCPU guest was seen), so no value of it is asserted.
     */
    @Test
    void rdtscpShouldStoreTscAuxInItsFourBytesAndReadInOrder() {
        assumeTrue(Arch.HERE == Arch.X86_64, "rdtscp: x86_64 only");
        Stubs.Mapped rdtscp = HardwareCounter.stub(CounterRead.X86_RDTSCP);
        assumeTrue(rdtscp.ok(), String.valueOf(rdtscp.failure()));
        HardwareCounter.Rdtscp c = (HardwareCounter.Rdtscp) HardwareCounter.create(CounterRead.X86_RDTSCP, 1e9);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment guard = arena.allocate(12, 4);
            guard.fill((byte) 0x5a);
            long before = c.read();
            long tsc = c.read(guard.asSlice(4, 4));
            long after = c.read();
            assertThat(tsc).isBetween(before, after);
            for (int i : new int[] {0, 1, 2, 3, 8, 9, 10, 11}) {
                assertThat(guard.get(ValueLayout.JAVA_BYTE, i)).as("byte %d beside TSC_AUX", i).isEqualTo((byte) 0x5a);
            }
        }
    }

    /**
     * The arm64 stubs count forward whatever the kernel's clocksource (under emulation the selector refuses
     * them, so this is where they run): isb;mrs and mrs cntvct_el0 always, mrs cntvctss_el0 where HWCAP2_ECV
     * is set; the unordered read lies between two ordered ones; cntfrq_el0 reads without trapping.
     */
    @Test
    void everyArm64FlavourShouldCountForward() {
        assumeTrue(Arch.HERE == Arch.AARCH64, "arm64 stubs: aarch64 only (scripts/arm64.sh runs them emulated)");
        boolean ecv = (CounterFacts.hwcap2() & Arch.HWCAP2_ECV) != 0;
        for (CounterRead f : CounterRead.values()) {
            if (f.arch() != Arch.AARCH64 || (f == CounterRead.A64_CNTVCTSS && !ecv)) {
                continue; // cntvctss_el0 is undefined without FEAT_ECV
            }
            assertThat(HardwareCounter.stub(f).ok()).as(f + ": " + HardwareCounter.stub(f).failure()).isTrue();
            HardwareCounter c = HardwareCounter.create(f, 1e9);
            assertThat(c.isOrdered()).isEqualTo(f != CounterRead.A64_CNTVCT);
            assertThat(c.widthBits()).isEqualTo(56);
            long first = c.read();
            long last = first;
            for (int i = 0; i < 20_000; i++) {
                long now = c.read();
                assertThat(now).as(f.instructions()).isGreaterThanOrEqualTo(last);
                last = now;
            }
            assertThat(last).as(f.instructions() + " never moved").isGreaterThan(first);
        }
        HardwareCounter ordered = HardwareCounter.create(CounterRead.A64_ISB_CNTVCT, 1e9);
        HardwareCounter unordered = HardwareCounter.create(CounterRead.A64_CNTVCT, 1e9);
        long a = ordered.read();
        long b = unordered.read();
        long c = ordered.read();
        assertThat(b).isBetween(a, c);
        // cntfrq_el0 may read 0 (qemu 10 leaves it unset); the selector then calibrates.
        CounterFacts.armFrequency().ifPresent(fr -> assertThat(fr.hz()).isPositive());
    }

    @Test
    void kernelCounterShouldBeMonotonicRawInNanoseconds() {
        KernelCounter k = new KernelCounter();
        long before = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
        long read = k.read();
        long after = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
        assertThat(read).isBetween(before, after);
        assertThat(k.multShift().toNanos(1_000_000_000L)).isEqualTo(1_000_000_000L);
    }
}
