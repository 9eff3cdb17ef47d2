package org.timekeeping4j.arch;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.FunctionDescriptor;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.Os;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.Stubs;

/** The per-architecture facts, read from the descriptor as the kernel and the CPU manuals state them. */
class ArchTest {

    private static final Set<String> NO_FLAGS = Set.of();

    @Test
    void x86ShouldDescribeTheTsc() {
        Arch a = Arch.X86_64;
        assertThat(a.machine()).isEqualTo("x86_64");
        assertThat(a.kernelClocksource()).isEqualTo("tsc");
        assertThat(a.counterBits()).isEqualTo(64);
        assertThat(a.sysClockGettime()).isEqualTo(228); // arch/x86/entry/syscalls/syscall_64.tbl
        // VDSO_CLOCKMODE_TSC only: PVCLOCK (2) and HVCLOCK (3) are other clocks, NONE (0) the syscall.
        assertThat(a.vdsoCountsWith(1)).isTrue();
        assertThat(a.vdsoCountsWith(0)).isFalse();
        assertThat(a.vdsoCountsWith(2)).isFalse();
        assertThat(a.vdsoCountsWith(3)).isFalse();
        assertThat(a.vdsoMask()).isEqualTo(-1L);
        assertThat(a.vdsoRefusal("5.4.0")).isNull();
        assertThat(a.reads(false, Set.of("rdtscp", "lfence_rdtsc"), 0)).containsExactly(CounterRead.X86_RDTSC);
        // lfence;rdtsc first only where the kernel says LFENCE orders RDTSC; rdtscp first wherever it exists.
        assertThat(a.reads(true, Set.of("rdtscp", "lfence_rdtsc"), 0))
                .containsExactly(CounterRead.X86_LFENCE_RDTSC, CounterRead.X86_RDTSCP);
        assertThat(a.reads(true, Set.of("lfence_rdtsc"), 0)).containsExactly(CounterRead.X86_LFENCE_RDTSC);
        assertThat(a.reads(true, Set.of("rdtscp"), 0))
                .containsExactly(CounterRead.X86_RDTSCP, CounterRead.X86_LFENCE_RDTSC);
        assertThat(a.reads(true, NO_FLAGS, 0)).containsExactly(CounterRead.X86_LFENCE_RDTSC);
    }

    @Test
    void x86ShouldRequireAnInvariantTsc() {
        assertThat(Arch.X86_64.unfit(Set.of("constant_tsc", "nonstop_tsc"), List.of())).isNull();
        assertThat(Arch.X86_64.unfit(Set.of("constant_tsc"), List.of())).contains("lacks nonstop_tsc")
                .doesNotContain("constant_tsc and");
        // An arm64 erratum is not x86's check.
        assertThat(Arch.X86_64.unfit(Set.of("constant_tsc", "nonstop_tsc"), List.of("an arm64 erratum")))
                .isNull();
    }

    @Test
    void aarch64ShouldDescribeTheGenericTimer() {
        Arch a = Arch.AARCH64;
        assertThat(a.machine()).isEqualTo("aarch64");
        assertThat(a.kernelClocksource()).isEqualTo("arch_sys_counter");
        assertThat(a.counterBits()).isEqualTo(56);
        assertThat(a.sysClockGettime()).isEqualTo(113); // include/uapi/asm-generic/unistd.h
        // ARCHTIMER (1) and ARCHTIMER_NOCOMPAT (2: the counter for 64-bit tasks); NONE (0) is the syscall.
        assertThat(a.vdsoCountsWith(1)).isTrue();
        assertThat(a.vdsoCountsWith(2)).isTrue();
        assertThat(a.vdsoCountsWith(0)).isFalse();
        assertThat(a.vdsoCountsWith(3)).isFalse();
        assertThat(a.vdsoMask()).isEqualTo(0x00ff_ffff_ffff_ffffL);
        // 5.3-5.6 gave clock_mode the opposite meaning; an unparsable release counts as too old.
        assertThat(a.vdsoRefusal("5.6.19")).contains("before 5.7").contains("5.6.19");
        assertThat(a.vdsoRefusal("vendor-kernel")).contains("vendor-kernel");
        assertThat(a.vdsoRefusal("5.7.0")).isNull();
        assertThat(a.vdsoRefusal("6.8.0-45-generic")).isNull();
        assertThat(a.reads(false, NO_FLAGS, Arch.HWCAP2_ECV)).containsExactly(CounterRead.A64_CNTVCT);
        assertThat(a.reads(true, NO_FLAGS, 0)).containsExactly(CounterRead.A64_ISB_CNTVCT);
        assertThat(a.reads(true, NO_FLAGS, Arch.HWCAP2_ECV))
                .containsExactly(CounterRead.A64_CNTVCTSS, CounterRead.A64_ISB_CNTVCT);
    }

    @Test
    void aarch64ShouldRefuseACounterWithAnErratum() {
        // No invariant-TSC flags: not arm64's check.
        assertThat(Arch.AARCH64.unfit(NO_FLAGS, List.of())).isNull();
        assertThat(Arch.AARCH64.unfit(NO_FLAGS, List.of("Cortex-A73 (cpu0) has arch-timer erratum 858921")))
                .startsWith("Cortex-A73 (cpu0) has arch-timer erratum 858921")
                .contains("keeps its vDSO off it");
    }

    @Test
    void everyFlavourShouldBelongToTheArchitectureThatOffersIt() {
        Set<CounterRead> offered = EnumSet.noneOf(CounterRead.class);
        for (Arch a : Arch.values()) {
            for (boolean ordered : new boolean[] {true, false}) {
                for (Set<String> flags : List.of(NO_FLAGS, Set.of("rdtscp"), Set.of("lfence_rdtsc", "rdtscp"))) {
                    for (long hwcap2 : new long[] {0, Arch.HWCAP2_ECV}) {
                        List<CounterRead> fs = a.reads(ordered, flags, hwcap2);
                        assertThat(fs).isNotEmpty()
                                .allMatch(f -> f.arch().machine().equals(a.machine()) && f.isOrdered() == ordered);
                        offered.addAll(fs);
                    }
                }
            }
        }
        assertThat(offered).containsExactlyInAnyOrder(CounterRead.values()); // none unreachable
    }

    @Test
    void anUnknownArchitectureShouldHaveNoDescriptor() {
        for (String machine : new String[] {"riscv64", "ppc64le", "s390x", "loongarch64", "amd64", "", "X86_64"}) {
            assertThat(Arch.of(machine)).as(machine).isNull(); // Os.machine names amd64 x86_64
        }
        assertThat(Arch.of(null)).isNull();
        assertThat(Arch.of("x86_64")).isEqualTo(Arch.X86_64);
        assertThat(Arch.of("aarch64")).isEqualTo(Arch.AARCH64);
        String why = Arch.noDescriptor("riscv64");
        assertThat(why).contains("riscv64").contains("x86_64 and aarch64").contains("kernel's clocks serve")
                .doesNotContain("\n");
        assertThat(Arch.noDescriptor(null)).isEqualTo("unsupported platform");
    }

    @Test
    void thisMachineShouldHaveItsPlatformsDescriptor() {
        if (Platform.ARCH != null) {
            assertThat(Arch.HERE).isEqualTo(Arch.of(Platform.ARCH));
        }
    }

    @Test
    void anotherArchitecturesStubShouldNotMapNamingBoth() {
        List<Arch> others = Arrays.stream(Arch.values()).filter(a -> a != Arch.HERE).toList();
        assertThat(others).isNotEmpty();
        for (Arch other : others) {
            Stubs.Mapped m = Stubs.map("a stub", new byte[] {(byte) 0xc3}, FunctionDescriptor.of(JAVA_LONG), Arch.of(other.machine()));
            assertThat(m.ok()).isFalse();
            if (Platform.UNSUPPORTED_REASON == null) {
                assertThat(m.failure()).isEqualTo("a stub is " + other.machine() + " code and this is " + Platform.ARCH);
            }
        }
    }
}
