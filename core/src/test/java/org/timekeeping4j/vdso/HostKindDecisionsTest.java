package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.machine.VclockCode;

/**
 * The decisions the library takes from a host's facts, fed the facts of every x86 host kind CI has met
 * (shared/reference/hosts.md), the ones no lab guest reproduces among them: the AMD EPYC guest under PVM, booted
 * {@code clocksource=kvm-clock tsc=unstable}, whose CPU flags lack rdtscp while the instruction still returns the
 * hypervisor's TSC_AUX. The library reads no kernel command line and never TSC_AUX: what it acts on is the CPU
 * flags (the ordered counter read), the vDSO data's clock_mode and the pvclock page's flags (whether exact mode
 * serves) and the pvclock page's scale (the rate of ticks). So the next host kind fails a test here only where a
 * decision would be wrong for it.
 */
class HostKindDecisionsTest {

    /**
     * One host kind's facts.
     *
     * @param name       as hosts.md names it
     * @param flags      the CPU flags /proc/cpuinfo lists
     * @param clockMode  the vDSO data's clock_mode with the kernel's clocksource (1 TSC, 2 PVCLOCK)
     * @param pvFlags    the pvclock page's flags (bit 0: PVCLOCK_TSC_STABLE_BIT)
     * @param tscHz      the TSC's rate
     * @param ordered    the ordered counter read the library must pick
     */
    record HostKind(String name, Set<String> flags, int clockMode, int pvFlags, double tscHz, CounterRead ordered) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<HostKind> hostKinds() {
        Set<String> invariant = Set.of("constant_tsc", "nonstop_tsc", "tsc_known_freq");
        return List.of(
                new HostKind("Intel Xeon guest, tsc", union(invariant, "rdtscp"), 1, 1, 2.6e9, CounterRead.X86_RDTSCP),
                new HostKind("Intel Xeon guest listing lfence_rdtsc", union(invariant, "rdtscp", "lfence_rdtsc"), 1, 1,
                        2.6e9, CounterRead.X86_LFENCE_RDTSC),
                new HostKind("AMD EPYC guest, tsc", union(invariant, "rdtscp"), 1, 1, 2.45e9, CounterRead.X86_RDTSCP),
                new HostKind("AMD EPYC guest switched to kvm-clock", union(invariant, "rdtscp"), 2, 1, 2.45e9,
                        CounterRead.X86_RDTSCP),
                new HostKind("AMD EPYC guest under PVM, kvm-clock only, tsc=unstable",
                        union(invariant, "tsc_reliable"), 2, 1, 2.096e9, CounterRead.X86_LFENCE_RDTSC));
    }

    private static Set<String> union(Set<String> a, String... more) {
        java.util.HashSet<String> s = new java.util.HashSet<>(a);
        s.addAll(List.of(more));
        return Set.copyOf(s);
    }

    /** rdtscp only where the CPU lists it (not on PVM, where it executes anyway); ticks always rdtsc. */
    @ParameterizedTest
    @MethodSource("hostKinds")
    void theOrderedReadShouldFollowTheListedFlagsOnly(HostKind h) {
        assertThat(Arch.X86_64.reads(true, h.flags(), 0).getFirst()).isEqualTo(h.ordered());
        assertThat(Arch.X86_64.reads(false, h.flags(), 0)).containsExactly(CounterRead.X86_RDTSC);
    }

    /** Exact mode serves clock_mode TSC itself, and PVCLOCK through the pvclock page while it is stable. */
    @ParameterizedTest
    @MethodSource("hostKinds")
    void exactModeShouldServeTheHostsClockModeWhileThePvclockPageIsStable(HostKind h) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pv = pvclockPage(arena, h.tscHz(), h.pvFlags());
            Discovery.Vclock readable = new Discovery.Vclock(pv.address() | VclockCode.PVCLOCK_READABLE, "", "");
            assertThat(serves(h.clockMode(), readable)).as("%s: exact mode serves", h).isTrue();
            pv.set(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS, (byte) 0); // the host clears the stable bit
            assertThat(serves(h.clockMode(), readable)).as("%s, stable bit clear", h).isEqualTo(h.clockMode() == 1);
            // The pvclock page not backed (no kvm-clock since boot): kvm-clock falls back, the TSC still serves.
            assertThat(serves(h.clockMode(), new Discovery.Vclock(0, "", ""))).isEqualTo(h.clockMode() == 1);
        }
    }

    /** Discovery's test: the vDSO data counts the counter itself, or the read serves the mode through a page. */
    private static boolean serves(int clockMode, Discovery.Vclock v) {
        return Arch.X86_64.vdsoCountsWith(clockMode) || Discovery.servesVclock(v, clockMode);
    }

    /**
     * Under PVCLOCK the vDSO data counts kvm-clock's nanoseconds while ticks are TSC cycles: the rate ticks are
     * stated at is the pvclock page's, and it agrees with the pvclock conversion of the same page over a second.
     */
    @ParameterizedTest
    @MethodSource("hostKinds")
    void ticksShouldBeStatedAtThePvclockPagesRate(HostKind h) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pv = pvclockPage(arena, h.tscHz(), VclockCode.PVCLOCK_TSC_STABLE_BIT);
            double perNano = VdsoFormula.pvclockTicksPerNano(pv);
            assertThat(perNano * 1e9).as("%s: ticks per second", h).isCloseTo(h.tscHz(),
                    org.assertj.core.data.Percentage.withPercentage(1e-6));
            long t0 = pv.get(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_TSC_TIMESTAMP);
            long ticks = Math.round(h.tscHz());
            long nanos = VdsoFormula.pvclock(pv, t0 + ticks) - VdsoFormula.pvclock(pv, t0);
            assertThat(ticks / (double) nanos).as("%s: the conversion's own rate", h).isCloseTo(perNano,
                    org.assertj.core.data.Percentage.withPercentage(1e-6));
            pv.set(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS, (byte) 0);
            assertThat(VdsoFormula.pvclockTicksPerNano(pv)).as("no rate stated from an unstable page").isZero();
        }
    }

    /** A pvclock page as KVM fills it for a TSC of {@code tscHz} (kvm_get_time_scale: shift -1..1, u32 mul). */
    static MemorySegment pvclockPage(Arena arena, double tscHz, int flags) {
        MemorySegment pv = arena.allocate(4096, 4096);
        int shift = tscHz > 2e9 ? -1 : tscHz > 1e9 ? 0 : 1;
        long mul = Math.round(Math.scalb(1e9 / tscHz, 32 - shift));
        assertThat(mul).as("mul fits 32 bits").isLessThan(1L << 32);
        pv.set(ValueLayout.JAVA_INT_UNALIGNED, VclockCode.PV_VERSION, 4);
        pv.set(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_TSC_TIMESTAMP, 393_329_172_875_352L);
        pv.set(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_SYSTEM_TIME, 1_090_000_000_000L);
        pv.set(ValueLayout.JAVA_INT_UNALIGNED, VclockCode.PV_MUL, (int) mul);
        pv.set(ValueLayout.JAVA_BYTE, VclockCode.PV_SHIFT, (byte) shift);
        pv.set(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS, (byte) flags);
        return pv;
    }
}
