package org.timekeeping4j.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.disruption.Disruptions;

/**
 * A re-discovery as a CRaC restore starts it (the hook org.crac calls after a restore, called here directly: no
 * CRaC JVM runs these tests; the CRIU lab restores a real one): the reads go to the kernel at once, exact mode serves
 * again by itself, ticks taken before convert as not exact, and the reads stay inside the kernel's brackets.
 */
class RediscoveryTest {

    @Test
    void aCracRestoreShouldRediscoverAndFlagEarlierTicks() throws Exception {
        Assumptions.assumeTrue(Clocks.awaitExactMode(Duration.ofSeconds(30)), "exact mode does not serve here: "
                + FastPath.reason());
        Object resource = CracHook.resource();
        assertThat(resource).as("org.crac is on the test path: the hook registers").isInstanceOf(org.crac.Resource.class);
        EventRecorder before = new EventRecorder(4);
        before.record(1);
        long ticksBefore = Clocks.ticks();
        long disruptions = Disruptions.count();

        ((org.crac.Resource) resource).afterRestore(null);
        assertThat(Disruptions.count()).isEqualTo(disruptions + 1);
        for (int i = 0; i < 100_000; i++) { // across the re-discovery: inside the kernel's bracket
            long b = KernelClocks.nanos(ClockId.MONOTONIC);
            long v = Clocks.nanos(ClockId.MONOTONIC);
            long a = KernelClocks.nanos(ClockId.MONOTONIC);
            assertThat(v).isBetween(b, a);
        }
        assertThat(FastPath.await(Duration.ofSeconds(30).toNanos())).isTrue();
        assertThat(FastPath.stage()).as(FastPath.reason()).isEqualTo(org.timekeeping4j.Diagnostics.Stage.EXACT);
        assertThat(FastPath.reason()).contains("exact mode serves again").contains("CRaC");
        assertThat(Clocks.awaitExactMode(Duration.ZERO)).isTrue();

        long t = Clocks.ticks();
        assertThat(Clocks.ticksToNanos(t, ClockId.MONOTONIC)).isPositive();
        assertThat(Disruptions.before(ticksBefore)).as("a tick taken before the restore").isTrue();
        assertThat(Disruptions.before(t)).as("a tick taken after it").isFalse();
        before.record(2);
        java.util.List<String> exported = new java.util.ArrayList<>();
        assertThat(before.export(ClockId.MONOTONIC, (nanos, payload, extrapolated) -> exported.add(payload + " " + extrapolated)))
                .isEqualTo(2);
        // Event 2's flag depends on whether a kernel tick came between its record and the export (ticks older
        // than the kernel's last update are extrapolated, flagged): only event 1's verdict is the restore's.
        assertThat(exported).hasSize(2).first().isEqualTo("1 true");
    }
}
