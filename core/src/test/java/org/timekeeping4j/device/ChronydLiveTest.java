package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/**
 * {@link Chronyd} against real chronyd processes, each compared field by field with what
 * {@code chronyc -c tracking} prints from the same daemon.
 *
 * <p>Every chronyd runs with {@code -x}: it never adjusts this machine's clock (its null driver only tracks the
 * offset it would correct). Each has a private configuration in a temporary directory: the command port on a free
 * loopback port, {@code cmdallow 127.0.0.1}, no Unix command socket ({@code bindcmdaddress /}), its own pidfile,
 * driftfile and logdir there, no network source. A daemon that follows another runs {@code server 127.0.0.1} on
 * the other's free NTP port: two private daemons on loopback, so that chronyd reports non-zero offsets, delays and
 * frequencies through its own float encoder. The daemons are stopped (SIGTERM) after each test.
 *
 * <p>Skips, saying why, where chronyd or chronyc is not installed (Debian: chrony), unless
 * {@code -Dtimekeeping4j.test.requireChronyd=true}: then that fails.
 */
class ChronydLiveTest {

    private static final String REQUIRE = "timekeeping4j.test.requireChronyd";
    private static final double SECONDS_HALF_UNIT = 0.5e-9; // chronyc -c prints seconds with %.9f
    private static final double PPM_HALF_UNIT = 0.5e-3; // and ppm with %.3f
    private static final double INTERVAL_HALF_UNIT = 0.05; // and the update interval with %.1f
    private static final double PARSE_SLACK = 1e-12;

    private static Path chronyd;
    private static Path chronyc;

    @TempDir
    Path dir;

    private final List<Process> daemons = new ArrayList<>();

    @BeforeAll
    static void findChrony() {
        chronyd = find("chronyd").orElse(null);
        chronyc = find("chronyc").orElse(null);
        String why = "chronyd or chronyc is not installed (Debian: apt-get install chrony): no daemon to ask";
        if (Boolean.getBoolean(REQUIRE)) {
            assertThat(chronyd != null && chronyc != null).as(why + ", and -D" + REQUIRE + "=true").isTrue();
        }
        assumeTrue(chronyd != null && chronyc != null, why);
    }

    private static Optional<Path> find(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
        return Stream.of(path.split(":")).filter(d -> !d.isEmpty()).map(d -> Path.of(d, name))
                .filter(Files::isExecutable).findFirst();
    }

    @AfterEach
    void stopDaemons() throws InterruptedException {
        for (Process p : daemons) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    /** A private chronyd that never touches the clock: -x, a configuration of its own, the foreground (-d). */
    private Process start(String name, String... directives) throws IOException {
        List<String> conf = new ArrayList<>(List.of(
                "# " + name + ": private to ChronydLiveTest; started with -x, it never adjusts the clock",
                "bindcmdaddress /",
                "pidfile " + dir.resolve(name + ".pid"),
                "driftfile " + dir.resolve(name + ".drift"),
                "logdir " + dir));
        conf.addAll(List.of(directives));
        Path file = dir.resolve(name + ".conf");
        Files.write(file, conf, StandardCharsets.US_ASCII);
        // -U: no root check (a developer's user); -u: no switch to the _chrony user, who could not write dir.
        Process p = new ProcessBuilder(chronyd.toString(), "-x", "-d", "-U", "-u", System.getProperty("user.name"),
                "-f", file.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
        daemons.add(p);
        return p;
    }

    private String log(String name) {
        try {
            return Files.readString(dir.resolve(name + ".log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Asks until the daemon answers with a report {@code done} accepts, for up to 30 s. */
    private ChronydTracking await(String name, Process p, Chronyd client, java.util.function.Predicate<ChronydTracking>
            done, String what) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String last = "no reply yet";
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                fail("chronyd " + name + " exited with " + p.exitValue() + ": " + log(name));
            }
            try {
                ChronydTracking t = client.tracking();
                if (done.test(t)) {
                    return t;
                }
                last = t.toString();
            } catch (IOException e) {
                last = e.getMessage();
            }
            Thread.sleep(100);
        }
        return fail("chronyd " + name + " did not report " + what + " in 30 s (last: " + last + "): " + log(name));
    }

    private String[] chronyc(int port) throws Exception {
        Process p = new ProcessBuilder(chronyc.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-n",
                "-c", "tracking").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("chronyc exits").isTrue();
        assertThat(p.exitValue()).as("chronyc's exit status, printing: %s", out).isZero();
        String[] csv = out.split(",", -1);
        assertThat(csv).as("chronyc -c tracking: %s", out).hasSize(14);
        return csv;
    }

    /**
     * Our report just before and just after chronyc's, both compared with chronyc's CSV: the fields chronyd changes
     * only at a clock update must print the same; the two it computes at each request (the correction being
     * slewed, the root dispersion) must lie between ours. Retried where a clock update fell in between.
     */
    private ChronydTracking compareWithChronyc(Chronyd client, int port) throws Exception {
        for (int i = 0; i < 50; i++) {
            ChronydTracking before = client.tracking();
            String[] csv = chronyc(port);
            ChronydTracking after = client.tracking();
            String refTime = before.referenceTime().getEpochSecond() + "."
                    + String.format(Locale.ROOT, "%09d", before.referenceTime().getNano());
            if (!before.referenceTime().equals(after.referenceTime()) || !refTime.equals(csv[3])) {
                continue; // chronyd updated its reference meanwhile
            }
            System.out.println("chronyc -c tracking: " + String.join(",", csv));
            System.out.println("decoded:             " + before);
            assertThat(csv[0]).as("reference id").isEqualTo(String.format("%08X", before.referenceId()));
            assertThat(csv[1]).as("reference name").isEqualTo(before.referenceAddress() != null
                    ? before.referenceAddress().getHostAddress() : refIdString(before.referenceId()));
            assertThat(Integer.parseInt(csv[2])).as("stratum").isEqualTo(before.stratum());
            assertThat(csv[3]).as("reference time").isEqualTo(refTime);
            between("system time (current correction)", csv[4], before.currentCorrection(),
                    after.currentCorrection(), SECONDS_HALF_UNIT);
            same("last offset", csv[5], before.lastOffset(), after.lastOffset(), SECONDS_HALF_UNIT);
            same("RMS offset", csv[6], before.rmsOffset(), after.rmsOffset(), SECONDS_HALF_UNIT);
            same("frequency", csv[7], before.frequencyPpm(), after.frequencyPpm(), PPM_HALF_UNIT);
            same("residual frequency", csv[8], before.residualFrequencyPpm(), after.residualFrequencyPpm(),
                    PPM_HALF_UNIT);
            same("skew", csv[9], before.skewPpm(), after.skewPpm(), PPM_HALF_UNIT);
            same("root delay", csv[10], before.rootDelay(), after.rootDelay(), SECONDS_HALF_UNIT);
            between("root dispersion", csv[11], before.rootDispersion(), after.rootDispersion(), SECONDS_HALF_UNIT);
            same("update interval", csv[12], before.lastUpdateInterval(), after.lastUpdateInterval(),
                    INTERVAL_HALF_UNIT);
            assertThat(csv[13]).as("leap status").isEqualTo(switch (before.leap()) {
                case NORMAL -> "Normal";
                case INSERT_SECOND -> "Insert second";
                case DELETE_SECOND -> "Delete second";
                case UNSYNCHRONISED -> "Not synchronised";
            });
            assertThat(before.requestMonotonicNanos()).isLessThanOrEqualTo(before.monotonicNanos());
            assertThat(before.monotonicNanos()).isLessThanOrEqualTo(after.requestMonotonicNanos());
            assertThat(after.monotonicNanos()).isLessThanOrEqualTo(KernelClocks.nanos(ClockId.MONOTONIC));
            // ClockBound's rule over chronyc's printed values agrees with ours to the printing's rounding.
            long fromChronyc = ChronydTracking.boundNanos(Double.parseDouble(csv[10]), Double.parseDouble(csv[11]),
                    Double.parseDouble(csv[4]));
            assertThat(fromChronyc).as("the bound from chronyc's figures")
                    .isBetween(Math.min(before.boundNanos(), after.boundNanos()) - 2,
                            Math.max(before.boundNanos(), after.boundNanos()) + 2);
            return before;
        }
        return fail("chronyd updated its reference between every pair of reports in 50 tries");
    }

    /** util.c's UTI_RefidToString: the id's printable bytes, most significant first. */
    private static String refIdString(int id) {
        StringBuilder s = new StringBuilder();
        for (int shift = 24; shift >= 0; shift -= 8) {
            int c = id >>> shift & 0xff;
            if (c >= 0x20 && c < 0x7f) {
                s.append((char) c);
            }
        }
        return s.toString();
    }

    private static void same(String field, String printed, double before, double after, double halfUnit) {
        assertThat(after).as("%s, unchanged without a clock update", field).isEqualTo(before);
        assertThat(Double.parseDouble(printed)).as("%s: chronyc printed %s, decoded %s", field, printed, before)
                .isCloseTo(before, org.assertj.core.data.Offset.offset(halfUnit + PARSE_SLACK));
    }

    private static void between(String field, String printed, double before, double after, double halfUnit) {
        double v = Double.parseDouble(printed);
        assertThat(v).as("%s: chronyc printed %s, decoded %s before and %s after", field, printed, before, after)
                .isBetween(Math.min(before, after) - halfUnit - PARSE_SLACK,
                        Math.max(before, after) + halfUnit + PARSE_SLACK);
    }

    @Test
    void shouldMatchChronycForADaemonWithoutASource() throws Exception {
        int port = freeUdpPort();
        Process p = start("lonely", "cmdport " + port, "bindcmdaddress 127.0.0.1", "cmdallow 127.0.0.1", "port 0");
        try (Chronyd client = Chronyd.udp("127.0.0.1:" + port)) {
            await("lonely", p, client, t -> true, "anything");
            ChronydTracking t = compareWithChronyc(client, port);
            assertThat(t.referenceId()).isZero();
            assertThat(t.stratum()).isZero();
            assertThat(t.leap()).isEqualTo(ChronydTracking.Leap.UNSYNCHRONISED);
            assertThat(t.synchronised()).isFalse();
        }
    }

    @Test
    void shouldMatchChronycForTheLocalReference() throws Exception {
        int port = freeUdpPort();
        Process p = start("local", "cmdport " + port, "bindcmdaddress 127.0.0.1", "cmdallow 127.0.0.1", "port 0",
                "local stratum 8");
        try (Chronyd client = Chronyd.udp("127.0.0.1:" + port)) {
            await("local", p, client, ChronydTracking::synchronised, "the local reference");
            ChronydTracking t = compareWithChronyc(client, port);
            assertThat(t.referenceId()).isEqualTo(0x7F7F0101); // "LOCAL"
            assertThat(t.referenceAddress()).isNull();
            assertThat(t.stratum()).isEqualTo(8);
            assertThat(t.leap()).isEqualTo(ChronydTracking.Leap.NORMAL);
            assertThat(t.synchronised()).isTrue();
        }
    }

    @Test
    void shouldMatchChronycWhileFollowingAServerOnLoopback() throws Exception {
        int ntpPort = freeUdpPort();
        int port = freeUdpPort();
        Process server = start("server", "cmdport 0", "port " + ntpPort, "bindaddress 127.0.0.1",
                "allow 127.0.0.1", "local stratum 8");
        Process client = start("client", "cmdport " + port, "bindcmdaddress 127.0.0.1", "cmdallow 127.0.0.1",
                "port 0", "server 127.0.0.1 port " + ntpPort + " minpoll -1 maxpoll -1 iburst");
        try (Chronyd c = Chronyd.udp("127.0.0.1:" + port)) {
            await("client", client, c, t -> t.synchronised() && t.referenceId() == 0x7F000001 && t.skewPpm() != 0,
                    "the server on 127.0.0.1:" + ntpPort + " as its reference");
            assertThat(server.isAlive()).as("the server chronyd: %s", log("server")).isTrue();
            ChronydTracking t = compareWithChronyc(c, port);
            assertThat(t.referenceAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(t.stratum()).isEqualTo(9);
            assertThat(t.rootDelay()).isPositive();
            assertThat(t.skewPpm()).isPositive();
            assertThat(t.boundNanos()).isPositive();
        }
    }

    /** The served bounds over a daemon that follows a server: synchronised, never narrower than its own report. */
    @Test
    void servedBoundsShouldFollowTheDaemonAndNeverBeNarrowerThanItsReport() throws Exception {
        int ntpPort = freeUdpPort();
        int port = freeUdpPort();
        start("server", "cmdport 0", "port " + ntpPort, "bindaddress 127.0.0.1", "allow 127.0.0.1",
                "local stratum 8");
        Process client = start("client", "cmdport " + port, "bindcmdaddress 127.0.0.1", "cmdallow 127.0.0.1",
                "port 0", "server 127.0.0.1 port " + ntpPort + " minpoll -1 maxpoll -1 iburst");
        try (Chronyd c = Chronyd.udp("127.0.0.1:" + port)) {
            await("client", client, c, ChronydTracking::synchronised, "synchronised to the server");
            ServedBounds served = new ServedBounds(ServedBounds.chosen("chrony", Path.of("/nonexistent"), c, null, new StringBuilder()));
            served.refresh(false);
            TimeBounds b = served.now(new TimeBounds());
            ChronydTracking after = c.tracking();
            assertThat(b.status()).as(served.why()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            assertThat(served.why()).startsWith("chronyd 127.0.0.1:" + port + ": synchronised, bound ");
            // The report after the read states a bound at a later instant; the served one grew from an earlier
            // sample at 50 ppm, chronyd's own dispersion far slower: never narrower.
            assertThat((b.latestNanos() - b.earliestNanos()) / 2).isGreaterThanOrEqualTo(after.boundNanos() / 2);
            assertThat(b.widthNanos()).isLessThan(Long.MAX_VALUE);
        }
    }
}
