package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.TimexReading;

/** The steering gate over made-up inputs: each check refuses with its reason, and none reads what it need not. */
class HostSteeringTest {

    private static final String ROOT_WITH_CAP = "Name:\tjava\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n";
    /** A default Docker container's root: CAP_SYS_TIME (bit 25) is not in the effective set. */
    private static final String ROOT_IN_CONTAINER = "Name:\tjava\nUid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n";
    private static final TimexReading QUIET = timex(0, 1_234_567, 10_000);

    private static TimexReading timex(long offset, long freq, long tick) {
        return new TimexReading(0, 0x40, offset, freq, 16_000_000, 16_000_000, 2, 1, 32_768_000, tick, 37);
    }

    private static <T> Supplier<T> never() {
        return () -> {
            throw new AssertionError("read although an earlier check refused");
        };
    }

    @Test
    void withoutThePropertyNothingIsReadAndTheSkipNamesTheProperty() {
        Optional<String> why = HostSteering.whyNot(null, never(), never(), never());
        assertThat(why).get().asString().contains("-Dtimekeeping4j.test.steerHost=true", "unset");
        assertThat(HostSteering.whyNot("false", never(), never(), never())).get().asString().contains("'false'");
    }

    @Test
    void rootWithoutCapSysTimeIsRefusedByTheCapabilityNotTheUserName() {
        Optional<String> why = HostSteering.whyNot("true", () -> ROOT_IN_CONTAINER, never(), never());
        assertThat(why).get().asString().contains("CAP_SYS_TIME", "bit 25");
        assertThat(HostSteering.hasCapSysTime(ROOT_IN_CONTAINER)).contains(false);
        assertThat(HostSteering.hasCapSysTime(ROOT_WITH_CAP)).contains(true);
        assertThat(HostSteering.hasCapSysTime("CapEff:\t0000000002000000\n")).contains(true); // bit 25 alone
        assertThat(HostSteering.whyNot("true", () -> "Name:\tjava\n", never(), never())).get().asString()
                .contains("no CapEff line");
    }

    @Test
    void aRunningTimeDaemonIsNamed() {
        Optional<String> why = HostSteering.whyNot("true", () -> ROOT_WITH_CAP,
                () -> List.of("systemd", "bash", "chronyd", "java"), never());
        assertThat(why).get().asString().contains("time daemon", "chronyd");
        assertThat(HostSteering.whyNot("true", () -> ROOT_WITH_CAP, () -> List.of("systemd-timesyn"), never()))
                .get().asString().contains("systemd-timesyn");
    }

    @Test
    void aFrequencyOrOffsetMovingBetweenTwoReadsIsSomeoneElseSteering() {
        Supplier<List<String>> noDaemon = () -> List.of("systemd", "java");
        assertThat(HostSteering.whyNot("true", () -> ROOT_WITH_CAP, noDaemon,
                () -> new TimexReading[] {QUIET, timex(0, 1_234_999, 10_000)})).get().asString()
                .contains("something else is steering", "1234567 -> 1234999");
        assertThat(HostSteering.whyNot("true", () -> ROOT_WITH_CAP, noDaemon,
                () -> new TimexReading[] {timex(400_000, 0, 10_000), timex(300_000, 0, 10_000)})).get().asString()
                .contains("offset 400000 -> 300000");
        assertThat(HostSteering.whyNot("true", () -> ROOT_WITH_CAP, noDaemon, () -> null)).get().asString()
                .contains("adjtimex cannot be read");
    }

    @Test
    void allQuietWithTheCapabilityAndThePropertyMaySteer() {
        assertThat(HostSteering.whyNot(" TRUE ", () -> ROOT_WITH_CAP, () -> List.of("java"),
                () -> new TimexReading[] {QUIET, QUIET})).isEmpty();
    }

    @Test
    void thisMachinesProcessListIsReadable() {
        assertThat(HostSteering.processNames()).as("/proc/*/comm").isNotEmpty();
    }
}
