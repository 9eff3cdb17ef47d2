package org.timekeeping4j.vdso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.testing.BracketedEvents;
import org.timekeeping4j.testing.HostFacts;
import org.timekeeping4j.testing.HostSteering;
import org.timekeeping4j.testing.TimeNamespaces;

/**
 * Exact mode for real where the machine allows it, in child JVMs ({@link AgreementMain}): bracketed reads of
 * every counter clock and the COARSE ones, 0 outside clock_gettime's brackets.
 * <ul>
 * <li>time namespaces ({@code unshare -T --monotonic M --boottime B}, three pairs that this machine's uptime
 *     allows, a boottime offset below the monotonic one among them: {@link TimeNamespaces}): exact mode serves
 *     with the namespace's offsets; and with exact mode off ({@code timekeeping4j.vdso=off}) the kernel path serves there. Runs as
 *     any user (in a user namespace of its own where it lacks CAP_SYS_TIME), changes nothing on the host.</li>
 * <li>kvm-clock: exact mode reads the pvclock page (where kvm-clock is not the clocksource already, the host's
 *     is switched to it); then, where a second clocksource the vDSO reads exists, switched tsc &lt;-&gt;
 *     kvm-clock every 500 ms while a child reads (tools/testing/selftests/timers/clocksource-switch does the
 *     same). A switch changes the host's clocksource: it needs root and {@code -Dtimekeeping4j.test.steerHost=true}
 *     (.ci/run passes it); the original clocksource is restored in a finally block.</li>
 * </ul>
 * {@code -Dtimekeeping4j.test.vclockReads=N} sets the reads per clock (default 10^7).
 */
class VclockHostTest {

    private static final long READS = Long.getLong("timekeeping4j.test.vclockReads", 10_000_000L);

    /** A child's report: its STATE line and, per clock, {reads, outside, worst}. */
    record Report(String state, String after, Map<String, long[]> clocks, String output) {}

    private static Report run(List<String> prefix, List<String> jvmArgs, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(AgreementMain.class.getName());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(600, TimeUnit.SECONDS)).as("child finished").isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("child exit: %s", text).isZero();
        String state = null;
        String after = null;
        Map<String, long[]> clocks = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("STATE ")) {
                state = line;
            } else if (line.startsWith("AFTER ")) {
                after = line;
            } else if (line.startsWith("CLOCK ")) {
                String[] f = line.split(" ");
                clocks.put(f[1], new long[] {Long.parseLong(f[3]), Long.parseLong(f[5]), Long.parseLong(f[7])});
            }
        }
        assertThat(state).as("child output: %s", text).isNotNull();
        assertThat(clocks).as("child output: %s", text).hasSize(AgreementMain.CLOCKS.length);
        return new Report(state, after, clocks, text);
    }

    private static void assertAgreement(Report r, long minReads, long tolerance) {
        System.out.println(r.output().strip()); // the figures, in the surefire report's output
        r.clocks().forEach((clock, v) -> {
            assertThat(v[0]).as("%s reads (%s)", clock, r.state()).isGreaterThanOrEqualTo(minReads);
            if (tolerance == 0) {
                assertThat(v[1]).as("%s reads outside the bracket, worst %d ns (%s)", clock, v[2], r.state()).isZero();
            } else {
                assertThat(v[2]).as("%s worst excursion (%s)", clock, r.state()).isLessThanOrEqualTo(tolerance);
            }
        });
    }

    @Test
    void exactModeShouldApplyATimeNamespacesOffsets() throws Exception {
        HostFacts.assumeX86("exact mode's time-namespace reader");
        TimeNamespaces.assumeUsable();
        // Offsets this machine's clocks allow now (a machine booted a minute ago refuses -500 s of BOOTTIME).
        long[][] pairs = TimeNamespaces.offsetPairs();
        System.out.println("time namespaces " + TimeNamespaces.how() + ", offsets " + Arrays.deepToString(pairs));
        for (long[] pair : pairs) {
            Report r = run(TimeNamespaces.prefix(pair[0], pair[1]), List.of(), "count", String.valueOf(READS));
            assertThat(r.state()).as("offsets %d/%d", pair[0], pair[1])
                    .contains("enabled=true", "timens=" + pair[0] * 1_000_000_000L + "," + pair[1] * 1_000_000_000L);
            assertAgreement(r, READS, 0);
        }
    }

    /** Exact mode off in a time namespace: the kernel path serves, BOOTTIME's offset below MONOTONIC's too. */
    @Test
    void theKernelPathShouldServeATimeNamespaceWithExactModeOff() throws Exception {
        TimeNamespaces.assumeUsable();
        long[] below = TimeNamespaces.offsetPairs()[1];
        Report t = run(TimeNamespaces.prefix(below[0], below[1]), List.of("-Dtimekeeping4j.vdso=off"), "count",
                String.valueOf(Math.max(1, READS / 10)));
        assertThat(t.state()).contains("enabled=false");
        assertAgreement(t, Math.max(1, READS / 10), 0);
    }

    /**
     * Exact mode reads kvm-clock from the pvclock page: where kvm-clock is the clocksource already (a guest booted
     * with clocksource=kvm-clock) nothing on the host changes; elsewhere the host's clocksource is switched to it
     * (root and the opt-in) and restored.
     */
    @Test
    void exactModeShouldReadKvmClock() throws Exception {
        HostFacts.assumeX86("exact mode's pvclock reader");
        HostFacts.assumeAvailable("kvm-clock");
        String original = HostFacts.currentClocksource();
        if (!original.equals("kvm-clock")) {
            assumeSteering();
        }
        try {
            switchTo("kvm-clock");
            Report r = run(List.of(), List.of(), "count", String.valueOf(READS));
            assertThat(r.state()).contains("enabled=true", "kvm-clock (clock_mode PVCLOCK): read by exact mode");
            assertAgreement(r, READS, 0);
        } finally {
            switchTo(original);
        }
        assertThat(HostFacts.currentClocksource()).isEqualTo(original);
    }

    /**
     * Exact mode on kvm-clock while the kernel's clock is steered as a daemon steers it (SteeredAgreementTest's
     * steering, on the pvclock page's reads): the one way to prove it on a host no lab guest reproduces (the QEMU
     * lab has no kvm-clock). Changes the host's clock state and, where kvm-clock is not current, its clocksource:
     * root, no time daemon, and the opt-in ({@link HostSteering}); both restored.
     */
    @Test
    void exactModeShouldAgreeOnKvmClockWhileTheClockIsSteered() throws Exception {
        HostFacts.assumeX86("exact mode's pvclock reader");
        HostFacts.assumeAvailable("kvm-clock");
        HostFacts.assumeExactModeServes();
        HostSteering.assumeMaySteer();
        String original = HostFacts.currentClocksource();
        try {
            switchTo("kvm-clock");
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> KernelVdso.vclockNow().startsWith("kvm-clock (clock_mode PVCLOCK): read by exact mode"));
            SteeredAgreementTest.steerAndCheck();
            assertThat(KernelVdso.vclockNow()).as("exact mode read kvm-clock throughout")
                    .startsWith("kvm-clock (clock_mode PVCLOCK): read by exact mode");
        } finally {
            switchTo(original);
        }
    }

    /**
     * Old events convert with the parameter set that served them on kvm-clock too (the history keeps the pvclock
     * page with each set), while the clock is steered, and honestly across a switch: events recorded on the
     * clocksource of the start (tsc here), then the host switched to kvm-clock, then events recorded there under
     * +-50 ppm frequency flips; exported 50 ms after the last. Every event said exact lies in its clock_gettime
     * bracket, every flagged one within its bound; most kvm-clock ones are exact. Root, no time daemon, the
     * opt-in; the clocksource and the clock's state restored.
     */
    @Test
    void eventsShouldConvertExactlyOnKvmClockWhileSteeredAndHonestlyAcrossASwitch() throws Exception {
        HostFacts.assumeX86("exact mode's pvclock reader");
        HostFacts.assumeAvailable("kvm-clock");
        HostFacts.assumeExactModeServes();
        HostSteering.assumeMaySteer();
        String original = HostFacts.currentClocksource();
        BracketedEvents events = new BracketedEvents(new EventRecorder(1 << 17)); // the recorder asks for the history
        try {
            for (int i = 0; i < 2_000; i++) { // on the clocksource of the start
                events.record();
            }
            int before = events.count();
            switchTo("kvm-clock");
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> KernelVdso.vclockNow().startsWith("kvm-clock (clock_mode PVCLOCK): read by exact mode"));
            long[] mult;
            try (ClockSteering steer = new ClockSteering()) { // +-50 ppm every 200 ms, as SteeredAgreementTest
                mult = steer.flipFrequency(10, 50, 200_000_000L, () -> {
                    events.record();
                    LockSupport.parkNanos(100_000); // pacing: events spread over the kernel's updates under each flip
                });
            }
            Thread.sleep(50); // every event now lies before the kernel's current update window
            String history = org.timekeeping4j.Clocks.diagnostics().history();
            assertThat(KernelVdso.vclockNow()).as("exact mode read kvm-clock throughout")
                    .startsWith("kvm-clock (clock_mode PVCLOCK): read by exact mode");
            assertThat((mult[1] - mult[0]) / (double) mult[0]).as("the steering reached the kernel: mult %d..%d",
                    mult[0], mult[1]).isGreaterThan(90e-6);
            BracketedEvents.Judged pre = events.judge(0, before);
            BracketedEvents.Judged kvm = events.judge(before, events.count());
            System.out.println("events before the switch to kvm-clock: " + pre + "; on kvm-clock, steered: " + kvm
                    + "; history: " + history);
            assertThat(kvm.exact()).as("exact on kvm-clock of %d (%s; history: %s)", kvm.total(), kvm, history)
                    .isGreaterThan(kvm.total() / 2);
        } finally {
            switchTo(original);
        }
        assertThat(HostFacts.currentClocksource()).isEqualTo(original);
    }

    /**
     * The host's clocksource switched between kvm-clock and another one the vDSO reads every 500 ms while a child
     * reads: exact mode follows, 0 reads outside the brackets; then the same with the pvclock reader off, where the
     * call sites switch to the clock_gettime stubs and back. Needs a second such clocksource (a guest booted with
     * tsc=unstable has none), root and the opt-in.
     */
    @Test
    void exactModeShouldFollowSwitchesEvery500Ms() throws Exception {
        HostFacts.assumeX86("exact mode's pvclock reader");
        HostFacts.assumeAvailable("kvm-clock");
        String other = HostFacts.assumeSecondVdsoClocksource();
        assumeSteering();
        String original = HostFacts.currentClocksource();
        try {
            // A child reading while the clocksource switches every 500 ms.
            Switched s = whileSwitching(other, List.of(), "10", false);
            assertThat(s.switches()).as("switches").isGreaterThanOrEqualTo(16);
            assertAgreement(s.report(), 1_000_000, 0);
            // The same with the pvclock reader off: on kvm-clock every read falls back, on tsc none does, so the
            // call sites switch to the clock_gettime stubs and back (ReadEntry) while the reads stay inside the
            // brackets. The child's discovery runs on tsc (on kvm-clock with the reader off exact mode would not
            // serve at all): the switches start once it says it is done.
            Switched fs = whileSwitching(other, List.of("-Dtimekeeping4j.vclock=off"), "6", true);
            Report f = fs.report();
            assertThat(fs.switches()).as("switches").isGreaterThanOrEqualTo(8);
            assertThat(f.state()).contains("enabled=true");
            assertAgreement(f, 100_000, 0);
            assertThat(f.after()).as("the call sites followed the clocksource").containsPattern(
                    "entrySwitches=([4-9]|[1-9][0-9])");
        } finally {
            switchTo(original);
        }
        assertThat(HostFacts.currentClocksource()).isEqualTo(original);
    }

    /** Skips unless this run may switch the host's clocksource: root and the opt-in. */
    private static void assumeSteering() {
        HostFacts.assumeRoot("switching the host's clocksource");
        assumeTrue(Boolean.getBoolean("timekeeping4j.test.steerHost"), "switching the host's clocksource (now "
                + HostFacts.currentClocksource() + ") needs -Dtimekeeping4j.test.steerHost=true (.ci/run passes it)");
    }

    /** A child's report and how often the clocksource was switched while it read. */
    record Switched(Report report, int switches) {}

    /**
     * Runs a child for {@code seconds} while the host's clocksource switches every 500 ms between kvm-clock and
     * {@code other}, from {@code other}; with {@code afterDiscovery} the switches start once the child says its
     * discovery is done (its ready file).
     */
    private static Switched whileSwitching(String other, List<String> jvmArgs, String seconds, boolean afterDiscovery)
            throws Exception {
        switchTo(other);
        Path ready = Files.createTempFile("tk4j-vclock", ".ready");
        Files.delete(ready);
        List<String> args = new ArrayList<>(jvmArgs);
        if (afterDiscovery) {
            args.add("-Dtk4j.test.ready=" + ready);
        }
        var child = new java.util.concurrent.CompletableFuture<Report>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                child.complete(run(List.of(), args, "seconds", seconds));
            } catch (Throwable e) {
                child.completeExceptionally(e);
            }
        });
        if (afterDiscovery) { // the child writes its ready file once its discovery is done (or it ended early)
            org.awaitility.Awaitility.await("the child's discovery").atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> Files.exists(ready) || !reader.isAlive());
        }
        Files.deleteIfExists(ready);
        int switches = 0;
        while (reader.isAlive()) {
            Thread.sleep(500); // pacing: the child reads through each clocksource for 500 ms until its run ends
            switchTo((switches++ & 1) == 0 ? "kvm-clock" : other);
        }
        return new Switched(child.get(), switches);
    }

    private static void switchTo(String clocksource) throws IOException {
        if (!HostFacts.currentClocksource().equals(clocksource)) {
            Files.writeString(HostFacts.currentClocksourceFile(), clocksource);
        }
    }
}
