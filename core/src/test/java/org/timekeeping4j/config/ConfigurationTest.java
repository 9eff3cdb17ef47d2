package org.timekeeping4j.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * The properties, parsed once and alike for every reader: each value trimmed and its case ignored, a value
 * that names nothing an error naming the valid ones. The process's own values are read once per JVM, so the
 * end-to-end case runs a JVM of its own.
 */
class ConfigurationTest {

    private static Configuration read(Map<String, String> properties) {
        return Configuration.read(properties);
    }

    @Test
    void unsetPropertiesAreTheDefaults() {
        Configuration c = read(Map.of());
        assertThat(c.counter()).isEqualTo(CounterMode.AUTO);
        assertThat(c.exactMode()).isTrue();
        assertThat(c.execmem()).isTrue();
        assertThat(c.vclock()).isTrue();
        assertThat(c.kernelChosen()).isFalse();
        assertThat(c.errors()).isEmpty();
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void everyValueIsTrimmedAndItsCaseIgnored() {
        Configuration c = read(Map.of(Configuration.COUNTER, " KERNEL ", Configuration.VDSO, "Off\t",
                Configuration.EXECMEM, " Deny ", Configuration.VCLOCK, " OFF"));
        assertThat(c.counter()).isEqualTo(CounterMode.KERNEL);
        assertThat(c.kernelChosen()).isTrue();
        assertThat(c.exactMode()).isFalse();
        assertThat(c.execmem()).isFalse();
        assertThat(c.vclock()).isFalse();
        assertThat(c.errors()).isEmpty();
        assertThat(c.vclockError()).isNull();
        assertThat(read(Map.of(Configuration.VCLOCK, "Auto ")).vclock()).isTrue();
    }

    @Test
    void aValueThatNamesNothingIsAnErrorNamingTheValidOnes() {
        Configuration c = read(Map.of(Configuration.EXECMEM, "maybe"));
        assertThat(c.execmemError())
                .isEqualTo("timekeeping4j.execmem=maybe is not an execmem mode; use one of allow, deny");
        assertThat(c.execmem()).as("the default stands in").isTrue();
        assertThat(read(Map.of(Configuration.EXECMEM, "")).execmemError()).contains("use one of allow, deny");
        assertThat(read(Map.of(Configuration.VDSO, "on")).vdsoError())
                .isEqualTo("unknown timekeeping4j.vdso=on: valid values are auto (exact mode wherever the kernel's "
                        + "vDSO data validates) and off");
        assertThat(read(Map.of(Configuration.COUNTER, "fastest")).counterError())
                .startsWith("timekeeping4j.counter=fastest is not a counter mode; use one of auto");
        Configuration vclock = read(Map.of(Configuration.VCLOCK, " maybe"));
        assertThat(vclock.vclockError()).isEqualTo("unknown timekeeping4j.vclock= maybe: valid values are auto (read"
                + " kvm-clock's pvclock page where it is backed) and off");
        assertThat(vclock.vclock()).as("the default stands in").isTrue();
        assertThat(vclock.errors()).containsExactly(vclock.vclockError());
        // Every bad value, in the order counter, vdso, execmem; the others still parse. The process warns of each
        // with the default it uses, and reads on.
        Configuration all = read(Map.of(Configuration.COUNTER, "x", Configuration.VDSO, "OFF",
                Configuration.EXECMEM, "y"));
        assertThat(all.errors()).hasSize(2).first().asString().startsWith("timekeeping4j.counter=x");
        assertThat(all.warnings()).containsExactly("timekeeping4j: " + all.counterError() + "; using auto",
                "timekeeping4j: timekeeping4j.execmem=y is not an execmem mode; use one of allow, deny; using allow");
        assertThat(all.exactMode()).isFalse();
        assertThat(all.execmem()).isTrue();
        assertThat(read(Map.of(Configuration.BOUNDS_DRIFT, "fast")).warnings()).containsExactly("timekeeping4j:"
                + " timekeeping4j.bounds.drift=fast is no drift: give ppm above 0 and at most 500 (default 50);"
                + " using 50 ppm");
        assertThat(read(Map.of(Configuration.BOUNDS_DRIFT, " 16 ")).boundsDriftPpb()).isEqualTo(16_000);
    }

    /** The leap-second list's path: trimmed, its case kept (a path is no keyword), a blank one an error. */
    @Test
    void theLeapSecondListIsAPathTrimmedWithItsCaseKept() {
        assertThat(read(Map.of()).leapSeconds()).isEqualTo("/usr/share/zoneinfo/leap-seconds.list");
        Configuration c = read(Map.of(Configuration.LEAP_SECONDS, " /etc/My-Leap.list\t"));
        assertThat(c.leapSeconds()).isEqualTo("/etc/My-Leap.list");
        assertThat(c.leapSecondsError()).isNull();
        Configuration blank = read(Map.of(Configuration.LEAP_SECONDS, "  "));
        assertThat(blank.leapSecondsError()).isEqualTo("timekeeping4j.leapSeconds=   is no path: give the file of a"
                + " leap-second list (IERS format), or leave it unset for /usr/share/zoneinfo/leap-seconds.list");
        assertThat(blank.leapSeconds()).as("the default stands in").isEqualTo("/usr/share/zoneinfo/leap-seconds.list");
        assertThat(blank.warnings()).containsExactly("timekeeping4j: " + blank.leapSecondsError()
                + "; using /usr/share/zoneinfo/leap-seconds.list");
    }

    /** -Dtimekeeping4j.leapSeconds names the list that Clocks.diagnostics() checks CLOCK_TAI against. */
    @Test
    void theDiagnosticsCheckTaiAgainstTheConfiguredList() throws IOException, InterruptedException {
        assumeTrue(Platform.UNSUPPORTED_REASON == null, Platform.UNSUPPORTED_REASON);
        String out = child("-Dtimekeeping4j.leapSeconds= /nonexistent/Leap-Seconds.list ");
        assertThat(out).containsPattern("(?m)^tai false CLOCK_TAI(?: is UTC \\+ -?\\d+ s, unchecked:|'s offset is"
                + " unknown: adjtimex refused with .*; and) no leap-second list at /nonexistent/Leap-Seconds.list"
                + " \\(install tzdata\\)$");
        assertThat(child("-Dtimekeeping4j.leapSeconds=")).contains("timekeeping4j.leapSeconds= is no path");
    }

    /** Run in the child JVM: what each part of the library decided, one line each. */
    public static void main(String[] args) {
        System.out.println("mode " + Configuration.PROCESS.counter());
        System.out.println("exact " + KernelVdso.ENABLED + " " + KernelVdso.reason());
        System.out.println("pvclock " + KernelVdso.pvclock());
        Clocks.awaitExactMode(java.time.Duration.ofSeconds(30)); // the paths once discovery has decided
        Map<ClockId, Diagnostics.Serving> paths = Clocks.diagnostics().clocks();
        for (ClockId clock : List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW)) {
            System.out.println("path " + clock + " " + (paths.get(clock).fromCounter() ? "COUNTER" : "KERNEL") + " " + paths.get(clock).why());
        }
        Diagnostics d = Clocks.diagnostics();
        System.out.println("tai " + d.taiConfirmed() + " " + d.tai());
    }

    /**
     * -Dtimekeeping4j.counter=" KERNEL ": the configuration, exact mode and the serving paths all read it as kernel.
     * (Discovery used to compare the raw string, so exact mode kept serving while the selection chose the
     * kernel.)
     */
    @Test
    void theKernelCounterModeInAnyCaseKeepsExactModeFromServing() throws IOException, InterruptedException {
        String out = child("-Dtimekeeping4j.counter= KERNEL ");
        assertThat(out).contains("mode KERNEL")
                .contains("exact false the counter is not read by choice (timekeeping4j.counter=kernel)")
                .contains("path REALTIME KERNEL").contains("path MONOTONIC KERNEL").contains("path MONOTONIC_RAW KERNEL")
                .doesNotContain("path REALTIME COUNTER");
    }

    /**
     * A bad -Dtimekeeping4j.vclock is warned of once, in one line with the default used, and the process reads on
     * with the default: the same decisions as where it is unset (a typo in a tuning flag never stops a read).
     */
    @Test
    void aBadValueShouldBeWarnedOfOnceAndTheDefaultUsed() throws IOException, InterruptedException {
        assumeTrue(Platform.UNSUPPORTED_REASON == null, Platform.UNSUPPORTED_REASON);
        String out = child("-Dtimekeeping4j.vclock=Sometimes");
        String warning = "timekeeping4j: unknown timekeeping4j.vclock=Sometimes: valid values are auto (read"
                + " kvm-clock's pvclock page where it is backed) and off; using auto";
        assertThat(out.lines().filter(warning::equals)).hasSize(1);
        String unset = child("-Dtimekeeping4j.unrelated=1");
        assertThat(out.lines().filter(l -> l.startsWith("mode ") || l.startsWith("exact ") || l.startsWith("path ")))
                .containsExactlyElementsOf(unset.lines().filter(l -> l.startsWith("mode ") || l.startsWith("exact ")
                        || l.startsWith("path ")).toList());
    }

    /** Runs {@link #main} in a JVM of its own with {@code property}; its output. */
    private static String child(String property) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", property, "-cp",
                System.getProperty("java.class.path"), ConfigurationTest.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
