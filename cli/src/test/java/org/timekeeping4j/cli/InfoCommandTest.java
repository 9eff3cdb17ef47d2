package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.testing.HostFacts;

class InfoCommandTest {

    /** The output with every folded line joined to the one it continues (continuations start with blanks). */
    static String unfolded(String out) {
        return out.replaceAll("\\R {14,}", " ");
    }

    @Test
    void infoShouldShowKernelClocksourceFlagsEveryClockAndSyncStatus() {
        CliHarness r = CliHarness.run("info");
        assertThat(r.exitCode()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("kernel        Linux " + System.getProperty("os.version"));
        assertThat(r.out()).contains("clocksource   " + HostFacts.currentClocksource());
        assertThat(r.out()).contains("counter flags");
        for (ClockId c : ClockId.values()) {
            // A run of unreadable AUX clocks with one reason is one row: "16-23 CLOCK_AUX+0..+7 no ...".
            java.util.regex.Matcher range = java.util.regex.Pattern.compile("(?m)^(\\d+)-(\\d+) +CLOCK_AUX\\+\\d+\\.\\.\\+\\d+ +no ")
                    .matcher(r.out());
            boolean inRange = false;
            while (range.find()) {
                inRange |= c.id() >= Integer.parseInt(range.group(1)) && c.id() <= Integer.parseInt(range.group(2));
            }
            if (!inRange) {
                assertThat(r.out()).containsPattern("(?m)^" + c.id() + "\\s+" + java.util.regex.Pattern.quote(c.kernelName()) + "\\s+(yes|no)");
            }
        }
        assertThat(r.out().lines().filter(l -> l.contains("does not exist in this kernel")).count())
                .as("unreadable AUX clocks folded into one row").isLessThanOrEqualTo(1);
        assertThat(r.out()).containsPattern("(?m)^4\\s+CLOCK_MONOTONIC_RAW\\s+yes\\s+1 ns");
        assertThat(r.out()).contains("sync status");
        // A VMClock, or its ACPI device without a driver (this machine kind), is said on one line, where it is.
        java.util.Optional<String> vmclock = VmClockCommand.infoLine();
        if (vmclock.isPresent()) {
            assertThat(r.out()).contains("vmclock       " + vmclock.get().substring(0, Math.min(40, vmclock.get().length())));
        } else {
            assertThat(r.out()).doesNotContain("vmclock ");
        }
    }

    /** The calibration info prints is the one the library converts with (the diagnostics' raw line), not another. */
    @Test
    void infoShowsTheCalibrationClocksDiagnosticsReport() {
        org.timekeeping4j.Diagnostics.VdsoData c = org.timekeeping4j.Clocks.diagnostics().vdsoData();
        CliHarness r = CliHarness.run("info");
        assertThat(r.exitCode()).isZero();
        String line = unfolded(r.out()).lines().filter(l -> l.startsWith("calibration ")).findFirst().orElseThrow();
        if (c.convertsCounter()) {
            assertThat(line).contains(String.format(java.util.Locale.ROOT, "%.6f MHz +/- 0 ppb (mult %d, shift %d)",
                    c.frequencyHz() / 1e6, c.rawMult(), c.rawShift())).contains(InfoCommand.calibrationSource(c));
        } else {
            assertThat(line).contains("none in use");
        }
        assertThat(unfolded(r.out())).doesNotContain("counter check").doesNotContain("rejected");
    }

    /**
     * One story about the counter: info's ticks line and its JSON say what the library's diagnostics say, and the
     * rate they state is the rate at which Clocks.ticks() advances against MONOTONIC_RAW (within 0.1%: the kernel's
     * own data, measured over a short bracket). ClockPathsTest holds tk4j verify's ticks path to the same record.
     */
    @Test
    void infoShouldSayWhatTicksAreAsTheDiagnosticsDo() {
        org.timekeeping4j.Diagnostics.Ticks t = org.timekeeping4j.Clocks.diagnostics().ticks();
        CliHarness r = CliHarness.run("info");
        assertThat(r.exitCode()).isZero();
        String line = unfolded(r.out()).lines().filter(l -> l.startsWith("ticks ")).findFirst().orElseThrow();
        assertThat(line).isEqualTo(String.format("%-13s %s", "ticks", InfoCommand.ticksLine(t)))
                .contains(t.counter()).contains("read with " + t.read());
        CliHarness j = CliHarness.run("info", "--json");
        com.fasterxml.jackson.databind.JsonNode ticks = new Tk4jHarness(j.exitCode(), j.out(), j.err()).json()
                .get("ticks");
        assertThat(ticks.get("counterCycles").asBoolean()).isEqualTo(t.counterCycles());
        assertThat(ticks.get("counter").asText()).isEqualTo(t.counter());
        assertThat(ticks.get("read").asText()).isEqualTo(t.read());
        if (!t.counterCycles()) {
            assertThat(t.frequencyHz()).isEqualTo(1e9);
            return;
        }
        assertThat(t.frequencyHz()).isPositive();
        // Each tick read inside a bracket of MONOTONIC_RAW reads: the time between the two tick reads lies between
        // the inner brackets' distance and the outer ones', so the true rate lies between the two quotients.
        org.timekeeping4j.ClockId raw = org.timekeeping4j.ClockId.MONOTONIC_RAW;
        long k0 = org.timekeeping4j.KernelClocks.nanos(raw);
        long c0 = org.timekeeping4j.Clocks.ticks();
        long k0b = org.timekeeping4j.KernelClocks.nanos(raw);
        java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L); // the span measured, not a wait
        long k1a = org.timekeeping4j.KernelClocks.nanos(raw);
        long c1 = org.timekeeping4j.Clocks.ticks();
        long k1 = org.timekeeping4j.KernelClocks.nanos(raw);
        double low = (c1 - c0) / ((k1 - k0) / 1e9);
        double high = (c1 - c0) / ((k1a - k0b) / 1e9);
        // 1 ppm for the kernel's mult/shift rounding; 1 kHz for an unordered read run ahead (100 cycles in 0.2 s).
        assertThat(t.frequencyHz()).as("ticks/s stated, against the brackets").isBetween(low * (1 - 1e-6) - 1000,
                high * (1 + 1e-6) + 1000);
    }

    /**
     * Whether CLOCK_TAI is TAI: info prints the diagnostics' one line (the host's own verdict, whatever it is), and
     * its JSON the same line with the confirmation.
     */
    @Test
    void infoShouldSayWhetherClockTaiIsTaiAsTheDiagnosticsDo() {
        org.timekeeping4j.Diagnostics d = org.timekeeping4j.Clocks.diagnostics();
        assertThat(d.tai()).startsWith("CLOCK_TAI").doesNotContain("\n");
        CliHarness r = CliHarness.run("info");
        assertThat(r.exitCode()).isZero();
        assertThat(unfolded(r.out()).lines().filter(l -> l.startsWith("tai "))).as(r.out())
                .containsExactly(String.format("%-13s %s", "tai", d.tai()));
        CliHarness j = CliHarness.run("info", "--json");
        com.fasterxml.jackson.databind.JsonNode tai = new Tk4jHarness(j.exitCode(), j.out(), j.err()).json()
                .get("tai");
        assertThat(Tk4jHarness.prose(tai.get("verdict"))).isEqualTo(d.tai());
        assertThat(tai.get("confirmed").asBoolean()).isEqualTo(d.taiConfirmed());
    }

    @Test
    void infoJsonShouldCarryTheSameFacts() {
        CliHarness r = CliHarness.run("info", "--json");
        assertThat(r.exitCode()).isZero();
        String json = r.out().trim();
        assertThat(json).startsWith("{").endsWith("}");
        assertThat(json).contains("\"currentClocksource\": \"" + HostFacts.currentClocksource() + "\"");
        assertThat(json).contains("\"name\": \"CLOCK_MONOTONIC_RAW\"");
        assertThat(json).contains("\"sync\": {");
        assertThat(json).containsPattern("\"synchronized\": (true|false)");
    }

    @Test
    void noArgumentsShouldRunTheMainJob() {
        CliHarness r = CliHarness.run();
        // The verdict itself is the fast path's and is tested where it is made (ExactClocksTest,
        // VerifyCommandTest); here: the main job runs info, bench and verify and reports a verdict that matches
        // its exit code.
        assertThat(r.out()).containsPattern("(?m)^MONOTONIC_RAW ").contains("paths here:").contains("fast")
                .containsPattern("(?m)^verify: .*\\[(OK|FAILED|INCONCLUSIVE)\\]");
        String verdict = r.out().lines().filter(l -> l.startsWith("verify:")).findFirst().orElseThrow();
        assertThat(r.exitCode()).as(r.out()).isEqualTo(verdict.contains("[FAILED]") ? 1
                : verdict.contains("[INCONCLUSIVE]") ? 3 : 0);
    }

    @Test
    void versionAndHelpShouldWork() {
        CliHarness v = CliHarness.run("--version");
        assertThat(v.exitCode()).isZero();
        assertThat(v.out()).startsWith("tk4j ").contains("Java 25");
        CliHarness h = CliHarness.run("--help");
        assertThat(h.exitCode()).isZero();
        assertThat(h.out()).contains("Usage: tk4j").contains("info");
    }

    @Test
    void badUsageShouldPrintOneLineAndExitTwo() {
        CliHarness r = CliHarness.run("info", "--no-such-option");
        assertThat(r.exitCode()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err()).startsWith("tk4j: unknown option '--no-such-option'");
        CliHarness unknown = CliHarness.run("frobnicate");
        assertThat(unknown.exitCode()).isEqualTo(Tk4j.EXIT_USAGE);
        assertThat(unknown.err().strip().lines()).hasSize(1);
    }

    @Test
    void errorsShouldBeOneLineWithTheCause() {
        assertThat(Tk4j.oneLine(new RuntimeException(new IllegalStateException("line one\nline two"))))
                .isEqualTo("java.lang.IllegalStateException: line one line two");
        assertThat(Tk4j.oneLine(new RuntimeException((String) null, new IllegalStateException("inner"))))
                .isEqualTo("inner");
    }
}
