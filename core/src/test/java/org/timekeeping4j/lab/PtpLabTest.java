package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.device.PtpCapabilities;
import org.timekeeping4j.device.PtpClock;
import org.timekeeping4j.device.PtpOffset;
import org.timekeeping4j.testing.KernelClock;

/**
 * PtpClock against netdevsim's mock PHC (drivers/ptp/ptp_mock.c: a timecounter over CLOCK_MONOTONIC_RAW with
 * adjfine, adjtime and settime, no cross timestamps, no gettimex64).
 */
@Tag("lab")
class PtpLabTest {

    static final Path PTP = Path.of("/dev/ptp0");
    static final int RAW = ClockId.MONOTONIC_RAW.id();
    static final int REALTIME = ClockId.REALTIME.id();

    PtpClock phc;

    /** Creates netdevsim device 1 with one port: its PHC is /dev/ptp0. */
    @BeforeAll
    static void mockPhc() throws Exception {
        KernelClock.assumeLabGuest();
        if (!Files.exists(PTP)) {
            KernelClock.sysfs("/sys/bus/netdevsim/new_device", "1 1");
            org.awaitility.Awaitility.await("netdevsim's PHC " + PTP).atMost(java.time.Duration.ofSeconds(10))
                    .pollInterval(java.time.Duration.ofMillis(20)).until(() -> Files.exists(PTP));
        }
        assertThat(KernelClock.read("/sys/class/ptp/ptp0/clock_name")).isEqualTo("Mock-up PTP clock");
    }

    @BeforeEach
    void open() throws Exception {
        phc = PtpClock.open(PTP, true); // writable: clock_adjtime and settime need it
        KernelClock.setFrequency(phc.clockId(), 0);
    }

    @AfterEach
    void close() {
        KernelClock.setFrequency(phc.clockId(), 0);
        phc.close();
    }

    @Test
    void capabilitiesShouldBeTheMockDriversOwn() {
        PtpCapabilities c = phc.capabilities();
        assertThat(c.maxAdjustmentPpb()).as("%s", c).isEqualTo(32_000_000);
        assertThat(c.crossTimestamping()).as("%s", c).isFalse();
        assertThat(c.alarms() + c.externalTimestamps() + c.periodicOutputs() + c.pins()).as("%s", c).isZero();
        assertThat(c.pps()).as("%s", c).isFalse();
    }

    @Test
    void aTimeSetThroughTheDynamicClockIdShouldBeReadBackRunningAtTheRawRate() {
        int id = phc.clockId();
        long target = 1_000_000_000L * KernelClock.NANOS; // 2001-09-09
        long r0 = KernelClock.gettime(RAW);
        KernelClock.settime(id, target);
        long read = phc.nanos();
        long r1 = KernelClock.gettime(RAW);
        assertThat(read - target).as("PHC after settime, ns past the target").isBetween(0L, r1 - r0);
        assertThat(KernelClock.gettime(id)).as("clock_gettime on the dynamic id").isGreaterThanOrEqualTo(read);
    }

    @Test
    void aFrequencyAdjustmentShouldBeSeenInTheReadingsAndReadBack() throws Exception {
        int id = phc.clockId();
        for (long ppm : new long[] {10_000, -10_000, 0}) {
            KernelClock.setFrequency(id, ppm << 16);
            assertThat(KernelClock.frequency(id)).as("frequency read back, ppm<<16").isEqualTo(ppm << 16);
            double[] rate = rate(phc, 300);
            double expected = 1 + ppm * 1e-6;
            assertThat(expected).as("PHC rate against MONOTONIC_RAW at %d ppm: bracket [%.7f, %.7f]", ppm,
                    rate[0], rate[1]).isBetween(rate[0] - 20e-6, rate[1] + 20e-6);
        }
    }

    @Test
    void ptpSysOffsetShouldAgreeWithTheClocksOwnReadsAndTheRefusedMethodsBeRemembered() {
        int id = phc.clockId();
        KernelClock.settime(id, KernelClock.gettime(REALTIME) + 5 * KernelClock.NANOS); // PHC 5 s ahead
        long phcBefore = phc.nanos();
        PtpOffset o = phc.offset(ClockId.REALTIME, 5);
        long phcAfter = phc.nanos();
        assertThat(o.method()).as("%s", o).isEqualTo(PtpClock.Method.BASIC);
        assertThat(phc.refusedMethods(ClockId.REALTIME)).as("EXTENDED answers EOPNOTSUPP, PRECISE too")
                .containsExactlyInAnyOrder(PtpClock.Method.PRECISE, PtpClock.Method.EXTENDED);
        assertThat(o.phcNanos()).as("the kernel's PHC sample between our reads").isBetween(phcBefore, phcAfter);
        assertThat(o.samples()).isEqualTo(5);
        long own = ownOffset(id, REALTIME);
        assertThat(o.offsetNanos()).as("PTP_SYS_OFFSET against our own (REALTIME, PHC, REALTIME) reads: %s", o)
                .isBetween(own - 200_000, own + 200_000);
        assertThat(o.offsetNanos()).as("the PHC was set 5 s ahead").isBetween(-5_100_000_000L, -4_900_000_000L);

        // MONOTONIC_RAW: no PRECISE, no EXTENDED on this driver, and BASIC is REALTIME-only: clock_gettime triplets.
        PtpOffset raw = phc.offset(ClockId.MONOTONIC_RAW, 5);
        assertThat(raw.method()).as("%s", raw).isEqualTo(PtpClock.Method.CLOCK_GETTIME);
        long ownRaw = ownOffset(id, RAW);
        assertThat(raw.offsetNanos()).isBetween(ownRaw - 200_000, ownRaw + 200_000);
    }

    /** Bracketed rate of the PHC against MONOTONIC_RAW over about {@code millis}: [lowest, highest]. */
    static double[] rate(PtpClock phc, long millis) throws InterruptedException {
        long a0 = KernelClock.gettime(RAW);
        long p0 = phc.nanos();
        long b0 = KernelClock.gettime(RAW);
        Thread.sleep(millis); // time must pass: the rate is measured over this span
        long a1 = KernelClock.gettime(RAW);
        long p1 = phc.nanos();
        long b1 = KernelClock.gettime(RAW);
        double d = p1 - p0;
        return new double[] {d / (b1 - a0), d / (a1 - b0)};
    }

    /** The offset system - PHC from the shortest of five (system, PHC, system) reads of our own. */
    static long ownOffset(int phcId, int systemId) {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 5; i++) {
            long pre = KernelClock.gettime(systemId);
            long p = KernelClock.gettime(phcId);
            long post = KernelClock.gettime(systemId);
            if (post - pre < best) {
                best = post - pre;
                offset = pre + (post - pre) / 2 - p;
            }
        }
        return offset;
    }
}
