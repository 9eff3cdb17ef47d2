package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.testing.HostFacts;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.testing.BracketReader;
import org.timekeeping4j.testing.KernelClock;

/**
 * The kernel's clocksource switched at run time, tsc -> hpet -> acpi_pm -> tsc, under a reader checking every
 * exact-mode read against the clock_gettime reads around it: the [vvar]'s clock_mode changes with each switch
 * (TSC while on tsc; the vDSO's fallback mode while on hpet or acpi_pm), exact mode follows it on every read,
 * and no read lies outside its bracket or goes back. Changes the clocksource of the kernel it runs on, so it
 * runs in a lab guest only (scripts/lab/qemu.sh; see {@link KernelClock#assumeLabGuest}). Puts tsc back in a
 * finally block.
 */
@Tag("lab")
class ClocksourceSwitchTest {

    private static final String CURRENT = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    private static final int VDSO_CLOCKMODE_TSC = 1;
    /** Per phase: emulated guests are 25-30x slower, so a phase is long and its floor low, but never zero. */
    private static final long PHASE_MS = Long.getLong("tk4j.lab.switchPhaseMs", 1500);
    private static final long MIN_READS_PER_PHASE = 1000;

    @Test
    void exactReadsShouldFollowTheClockModeThroughRuntimeClocksourceSwitches() throws Exception {
        KernelClock.assumeLabGuest();
        assumeTrue("x86_64".equals(Platform.ARCH), "tsc, hpet and acpi_pm are x86 clocksources; this is " + Platform.ARCH);
        List<String> available = HostFacts.availableClocksources();
        assumeTrue(available.containsAll(List.of("tsc", "hpet", "acpi_pm")),
                "the kernel offers " + available + ", not tsc, hpet and acpi_pm");
        KernelVdsoTest.assumeExactModePossible();
        assertThat(KernelVdso.ENABLED).as("exact mode on tsc: %s", KernelVdso.reason()).isTrue();

        List<String> phases = List.of("hpet", "acpi_pm", "tsc");
        List<String> seen = new ArrayList<>();
        long[] readsPerPhase = new long[phases.size()];
        int tscMode = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).clockMode();
        assertThat(tscMode).as("clock_mode on tsc").isEqualTo(VDSO_CLOCKMODE_TSC);
        BracketReader reader = new BracketReader(Set.of(ClockId.REALTIME), ClockId.REALTIME, ClockId.MONOTONIC,
                ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI);
        try (reader) {
            for (int p = 0; p < phases.size(); p++) {
                String source = phases.get(p);
                switchTo(source);
                int mode = awaitClockMode(source.equals("tsc"));
                long before = reader.reads.get();
                Thread.sleep(PHASE_MS); // pacing: the reader reads through this clocksource for one phase
                readsPerPhase[p] = reader.reads.get() - before;
                seen.add(source + ": clock_mode " + mode + ", " + readsPerPhase[p] + " reads, served by "
                        + (KernelVdso.clockGettimeServes() ? "clock_gettime" : "the read"));
            }
        } finally {
            switchTo("tsc");
        }
        assertThat(HostFacts.currentClocksource()).isEqualTo("tsc");
        for (int p = 0; p < phases.size(); p++) {
            assertThat(readsPerPhase[p]).as("reads while on %s (%s)", phases.get(p), seen)
                    .isGreaterThanOrEqualTo(MIN_READS_PER_PHASE);
        }
        assertThat(reader.outside.get()).as("reads outside their bracket of %d (%s; first: %s)", reader.reads.get(),
                seen, reader.firstFailure()).isZero();
        assertThat(reader.backwards.get()).as("reads going back (%s; first: %s)", seen, reader.firstFailure())
                .isZero();
        // hpet and acpi_pm: every read falls back, so the call sites go to the clock_gettime stubs (ReadEntry); on
        // tsc the watcher brings the read back.
        assertThat(seen.get(0)).as("the sites on hpet (%s)", seen).endsWith("served by clock_gettime");
        assertThat(seen.get(2)).as("the sites back on tsc (%s)", seen).endsWith("served by the read");
        assertThat(KernelVdso.entrySwitches()).as("entry switches (%s)", seen).isGreaterThanOrEqualTo(2);
        System.out.println("ClocksourceSwitchTest: " + seen + ", " + reader.reads.get() + " bracketed reads, 0 outside");
    }

    private static void switchTo(String source) {
        KernelClock.sysfs(CURRENT, source);
        assertThat(HostFacts.currentClocksource()).as("clocksource after writing %s", source).isEqualTo(source);
    }

    /** The [vvar]'s clock_mode once the kernel's next update published the switch: TSC, or not TSC. */
    private static int awaitClockMode(boolean tsc) {
        return org.awaitility.Awaitility.await("clock_mode " + (tsc ? "TSC" : "not TSC") + " after the switch")
                .atMost(java.time.Duration.ofSeconds(5)).pollInterval(java.time.Duration.ofMillis(5))
                .until(() -> KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).clockMode(),
                        mode -> (mode == VDSO_CLOCKMODE_TSC) == tsc);
    }
}
