package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.DeviceSyscalls;

/**
 * {@code tk4j phc --fast} over a PHC whose time is a known function of MONOTONIC_RAW ({@link SimulatedDevices#RAW_PTP}):
 * the estimate beside clock_gettime on the PHC, its uncertainty holding the PHC's time between the two reads.
 */
class PhcFastTest {

    @AfterEach
    void realKernel() {
        DeviceSyscalls.use(DeviceSyscalls.linux());
    }

    @Test
    void theEstimateHoldsBetweenTwoSystemCallsAndSaysHow() {
        DeviceSyscalls.use(new SimulatedDevices());
        Tk4jHarness r = Tk4jHarness.run("phc", SimulatedDevices.RAW_PTP, "--fast", "--samples", "20", "--interval", "20");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("PRECISE cross timestamps every");
        assertThat(r.out().lines().filter(l -> l.matches("\\d+\\.\\d{9} .*"))).as(r.out()).hasSize(20)
                .allMatch(l -> l.matches("\\d+\\.\\d{9} \\+/- \\d+ ns \\([\\d.]+ ms old\\), syscall "
                        + "[+-]\\d+/[+-]\\d+ ns: holds"));
        Tk4jHarness j = Tk4jHarness.run("phc", SimulatedDevices.RAW_PTP, "--fast", "--samples", "3", "--json");
        assertThat(j.exit()).as(j.toString()).isZero();
        assertThat(j.json().get("readings")).hasSize(3).allMatch(n -> n.get("holds").asBoolean()
                && n.get("latestNanos").asLong() >= n.get("clockGettimeBeforeNanos").asLong());
        assertThat(Tk4jHarness.prose(j.json().get("estimate"))).startsWith("PRECISE cross timestamps");
    }
}
