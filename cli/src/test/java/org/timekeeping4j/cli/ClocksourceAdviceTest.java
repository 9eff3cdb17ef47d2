package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The decision of what a clocksource costs a reader, from names alone, and its words. */
class ClocksourceAdviceTest {

    private static Optional<ClocksourceAdvice> of(String current, String available, String machine) {
        return ClocksourceAdvice.of(current, List.of(available.split(" ")), machine, false);
    }

    @Test
    void theCountersOwnClocksourcesCostNoSystemCall() {
        assertThat(of("tsc", "tsc hpet acpi_pm", "x86_64")).isEmpty();
        assertThat(of("arch_sys_counter", "arch_sys_counter", "aarch64")).isEmpty();
        assertThat(of("hyperv_clocksource_tsc_page", "hyperv_clocksource_tsc_page tsc", "x86_64")).isEmpty();
        // Unreadable sysfs: nothing is claimed.
        assertThat(ClocksourceAdvice.of("", List.of(), "x86_64", true)).isEmpty();
    }

    @Test
    void hpetAndAcpiPmAlwaysCostASystemCallAndPointToTheTscWhereTheKernelOffersIt() {
        assertThat(of("hpet", "tsc hpet acpi_pm", "x86_64")).contains(new ClocksourceAdvice("hpet", "tsc", ""));
        assertThat(of("acpi_pm", "tsc hpet acpi_pm", "x86_64")).contains(new ClocksourceAdvice("acpi_pm", "tsc", ""));
        // The kernel marked the TSC unstable (not listed): kvm-clock is the faster one it offers, with its condition.
        ClocksourceAdvice kvm = of("hpet", "kvm-clock hpet acpi_pm", "x86_64").orElseThrow();
        assertThat(kvm.faster()).isEqualTo("kvm-clock");
        assertThat(kvm.caveat()).contains("pvclock page stable");
        // Nothing faster offered: said slow, no switch suggested.
        assertThat(of("acpi_pm", "hpet acpi_pm", "x86_64")).contains(new ClocksourceAdvice("acpi_pm", null, ""));
    }

    @Test
    void pvclockClocksourcesCostASystemCallOnlyWhenTheirReadFallsBack() {
        assertThat(ClocksourceAdvice.of("kvm-clock", List.of("kvm-clock", "tsc", "hpet"), "x86_64", false)).isEmpty();
        assertThat(ClocksourceAdvice.of("kvm-clock", List.of("kvm-clock", "tsc", "hpet"), "x86_64", true))
                .contains(new ClocksourceAdvice("kvm-clock", "tsc", ""));
        // The PVM guest booted clocksource=kvm-clock tsc=unstable (hosts.md): kvm-clock alone, its page stable, so
        // nothing to say; were the page unstable, slow with no way out (the TSC is not offered).
        assertThat(ClocksourceAdvice.of("kvm-clock", List.of("kvm-clock"), "x86_64", false)).isEmpty();
        assertThat(ClocksourceAdvice.of("kvm-clock", List.of("kvm-clock"), "x86_64", true))
                .contains(new ClocksourceAdvice("kvm-clock", null, ""));
        // xen without the TSC offered: slow, and kvm-clock is no way out of a pvclock that falls back.
        assertThat(ClocksourceAdvice.of("xen", List.of("xen", "kvm-clock"), "x86_64", true))
                .contains(new ClocksourceAdvice("xen", null, ""));
    }

    @Test
    void theFasterClocksourceIsTheArchitecturesOwnCounter() {
        assertThat(of("jiffies", "arch_sys_counter jiffies", "aarch64"))
                .contains(new ClocksourceAdvice("jiffies", "arch_sys_counter", ""));
        // tsc means nothing on arm64, nor kvm-clock.
        assertThat(of("jiffies", "tsc kvm-clock jiffies", "aarch64")).contains(new ClocksourceAdvice("jiffies", null, ""));
        assertThat(of("jiffies", "jiffies", "riscv64")).contains(new ClocksourceAdvice("jiffies", null, ""));
    }

    @Test
    void theWordsSayTheCostAgainstTheCountersAndHowToSwitchAsRootAndAtBoot() {
        List<String> lines = new ClocksourceAdvice("hpet", "tsc", "").lines(1830.4, 21.2, "rdtsc");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isEqualTo("hpet: reads are syscalls: 1,830 ns (rdtsc: 21 ns)");
        assertThat(lines.get(1)).contains("as root, echo tsc > " + ClocksourceAdvice.CURRENT)
                .contains("clocksource=tsc");
        // No counter to compare with, nothing faster: the one line, without a figure it does not have.
        assertThat(new ClocksourceAdvice("jiffies", null, "").lines(950, Double.NaN, null))
                .containsExactly("jiffies: reads are syscalls: 950 ns each");
        // The widest it gets (acpi_pm, a read under emulation, arm64's counter read) fits under info's label.
        assertThat(new ClocksourceAdvice("acpi_pm", null, "").lines(123_456, 21, "mrs cntvct_el0").get(0).length())
                .isLessThanOrEqualTo(Terminal.DEFAULT - 14);
        assertThat(ClocksourceAdvice.ns(9.46)).isEqualTo("9.5");
    }

    @Test
    void aVdsoReadCostsASystemCallWhenItCostsAsMuchAsOne() {
        assertThat(ClocksourceCost.costsASystemCall(25, 140)).isFalse();
        assertThat(ClocksourceCost.costsASystemCall(135, 140)).isTrue();
        assertThat(ClocksourceCost.costsASystemCall(30, 60)).isFalse();
    }

    /**
     * The measurement behind the words, run here as if the kernel were on hpet: both costs measured and said, the
     * counter named (its figures are this machine's, asserted only to be figures).
     */
    @Test
    void theMeasuredLinesNameTheReadsCostAndTheCounters() {
        String machine = org.timekeeping4j.linux.LinuxTime.uname().machine();
        org.junit.jupiter.api.Assumptions.assumeTrue(ClocksourceAdvice.counterClocksource(machine) != null,
                "no counter descriptor for " + machine);
        ClocksourceCost cost = ClocksourceCost.of("hpet", List.of("hpet", "tsc", "arch_sys_counter"), machine)
                .orElseThrow();
        assertThat(cost.lines().get(0)).matches("hpet: reads are syscalls: [\\d,.]+ ns "
                + "\\((rdtsc|mrs cntvct_el0): [\\d,.]+ ns\\)");
        assertThat(cost.lines().get(1)).contains("echo " + ClocksourceAdvice.counterClocksource(machine) + " > ");
        assertThat(cost.toMap()).containsEntry("systemCallEveryRead", true).containsKeys("readNs", "counterNs");
        // kvm-clock where exact mode serves: its pvclock page is read in user space, so nothing to say.
        if (org.timekeeping4j.Clocks.diagnostics().vdsoData().serves()) {
            assertThat(ClocksourceCost.of("kvm-clock", List.of("kvm-clock", "tsc"), machine)).isEmpty();
        }
        // The counter's own clocksource is measured not at all.
        assertThat(ClocksourceCost.of(ClocksourceAdvice.counterClocksource(machine), List.of(), machine)).isEmpty();
    }
}
