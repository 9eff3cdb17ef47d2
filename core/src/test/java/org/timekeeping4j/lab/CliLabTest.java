package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.testing.KernelClock;

/** The CLI against the guest's real drivers and across real leap seconds: tk4j pps, phc, verify consistency. */
@Tag("lab")
class CliLabTest {

    static final long S = KernelClock.NANOS;
    static final long DAY = 86_400 * S;

    @BeforeAll
    static void guest() throws Exception {
        KernelClock.assumeLabGuest();
        PtpLabTest.mockPhc();
        Tk4j.jar();
    }

    @AfterEach
    void clear() {
        KernelClock.setStatus(0);
    }

    @Test
    void tk4jPpsShouldPrintTheKtimersEventsWithConsecutiveSequences() throws Exception {
        Tk4j.Run r = Tk4j.run("pps", "/dev/pps0", "--count", "3", "--timeout", "3");
        r.assertPassed();
        // pps_ktimer: PPS_CAPTUREASSERT | PPS_OFFSETASSERT | PPS_ECHOASSERT | PPS_CANWAIT | PPS_TSFMT_TSPEC
        assertThat(r.out()).contains("/dev/pps0: capabilities 0x1151 CAPTUREASSERT OFFSETASSERT ECHOASSERT CANWAIT TSFMT_TSPEC");
        Matcher m = Pattern.compile("(?m)^assert (\\d+)\\.(\\d{9}), sequence: (\\d+)").matcher(r.out());
        List<Long> sequences = new ArrayList<>();
        while (m.find()) {
            sequences.add(Long.parseLong(m.group(3)));
        }
        assertThat(sequences).as("sequences printed").hasSize(3);
        assertThat(sequences.get(1)).isEqualTo(sequences.get(0) + 1);
        assertThat(sequences.get(2)).isEqualTo(sequences.get(1) + 1);
    }

    @Test
    void tk4jPhcShouldMeasureTheMockClockAgainstRealtimeAndAnAuxClockAndNameTheRefusedMethods() throws Exception {
        Tk4j.Run r = Tk4j.run("phc", "/dev/ptp0", "--samples", "3");
        r.assertPassed();
        assertThat(r.out()).contains("/dev/ptp0: max_adj 32000000 ppb").contains("cross timestamping no");
        assertThat(r.out().lines().filter(l -> l.matches("/dev/ptp0 CLOCK_REALTIME offset +-?\\d+ ns delay +\\d+ ns "
                + "method BASIC"))).hasSize(3);
        assertThat(r.out()).contains("/dev/ptp0: refused by the driver for CLOCK_REALTIME: PRECISE, EXTENDED");

        KernelClock.sysfs("/sys/kernel/time/aux_clocks/0/aux_clock_enable", "1");
        Tk4j.Run aux = Tk4j.run("phc", "/dev/ptp0", "--samples", "2", "--clock", "CLOCK_AUX+0");
        aux.assertPassed();
        assertThat(aux.out().lines().filter(l -> l.matches("/dev/ptp0 CLOCK_AUX\\+0 offset +-?\\d+ ns delay +\\d+ ns "
                + "method CLOCK_GETTIME"))).hasSize(2);
        // PRECISE serves REALTIME and MONOTONIC_RAW only, so for an AUX clock it is not even tried.
        assertThat(aux.out()).contains("refused by the driver for CLOCK_AUX+0: EXTENDED (");
    }

    /**
     * Leaps one after another while {@code tk4j verify consistency} runs on TAI, MONOTONIC and BOOTTIME over every
     * path, one process per path, all at once: each leap steps REALTIME forward to 2.1 s before the next UTC
     * midnight (nothing goes back) and sets STA_INS (STA_DEL every other time). Every cell lasts
     * {@value #CELL_SECONDS} s and no interval between two leaps is longer, so every cell reads across a leap.
     */
    @Test
    void tk4jVerifyConsistencyShouldFindNoViolationAcrossLeapSecondsOnEveryPath() throws Exception {
        // The cells: which path serves which of the three clocks here (a plan run; the path set is the CLI's).
        java.util.Map<String, List<String>> cells = new java.util.LinkedHashMap<>();
        for (String[] cell : LabSizing.cells("consistency", "-c", "TAI", "-c", "MONOTONIC", "-c", "BOOTTIME")) {
            cells.computeIfAbsent(cell[0], k -> new ArrayList<>()).add(cell[1]);
        }
        assertThat(cells).as("paths").containsKeys("kernel", "syscall", "fast", "snapshot");
        // A cell lasts CELL_SECONDS (every cell reads across a leap) or longer where this guest's reads are slow.
        long cellSeconds = (long) Math.ceil(Math.max(CELL_SECONDS, LabSizing.cellSeconds(LabSizing.readCostNanos())));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Long> leapsAtMonotonic = new ArrayList<>();
        long start = KernelClock.gettime(ClockId.MONOTONIC.id());
        Thread storm = Thread.ofPlatform().name("leap storm").start(() -> {
            try {
                int flag = KernelClock.STA_INS;
                while (!stop.get()) {
                    KernelClock.awaitTimeOk();
                    // The kernel arms a leap at a second's end (TIME_OK -> TIME_INS/DEL): an insertion armed before
                    // 23:59:59 happens at midnight, a deletion must be armed before 23:59:58 (it ends 23:59:59 early).
                    long lead = 21 * S / 10;
                    long rt = KernelClock.gettime(ClockId.REALTIME.id());
                    long midnight = Math.floorDiv(rt + lead, DAY) * DAY + DAY;
                    KernelClock.settime(ClockId.REALTIME.id(), midnight - lead); // forward: nothing goes back
                    int tai = SyncStatus.read().taiOffsetSeconds();
                    KernelClock.setStatus(flag);
                    // Armed in time only where REALTIME is still before the last moment the flag may be set: this
                    // thread shares the guest's CPU with the verify runs and can be held up for seconds (once: the
                    // leap then came a day later). Armed late: clear it (awaitTimeOk above) and arm the next one.
                    long latest = midnight - (flag == KernelClock.STA_INS ? 1 : 2) * S;
                    if (KernelClock.gettime(ClockId.REALTIME.id()) >= latest) {
                        continue;
                    }
                    // The kernel's verdict, not a duration: an armed leap has come once REALTIME passed midnight
                    // (2 s past it, for the tick that applies it), however late this thread looks.
                    // No wall-clock timeout: the deadline is REALTIME's, the clock the leap happens on.
                    org.awaitility.Awaitility.await("the leap armed for " + midnight).forever()
                            .pollInterval(java.time.Duration.ofMillis(10))
                            .failFast("REALTIME passed " + (midnight + 2 * S) + " without the leap armed for "
                                    + midnight, () -> KernelClock.gettime(ClockId.REALTIME.id()) >= midnight + 2 * S)
                            .until(() -> SyncStatus.read().taiOffsetSeconds() != tai || stop.get());
                    synchronized (leapsAtMonotonic) {
                        leapsAtMonotonic.add(KernelClock.gettime(ClockId.MONOTONIC.id()));
                    }
                    flag = flag == KernelClock.STA_INS ? KernelClock.STA_DEL : KernelClock.STA_INS;
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        java.util.Map<String, Process> runs = new java.util.LinkedHashMap<>();
        List<Tk4j.Run> results = new ArrayList<>();
        try {
            for (var e : cells.entrySet()) {
                List<String> args = new ArrayList<>(List.of("verify", "consistency", "--path", e.getKey(), "-t",
                        String.valueOf(e.getValue().size() * cellSeconds)));
                e.getValue().forEach(c -> args.addAll(List.of("-c", c)));
                runs.put(e.getKey(), Tk4j.start(args.toArray(String[]::new)));
            }
            for (Process p : runs.values()) {
                results.add(Tk4j.finish(p, 120 + 3 * cellSeconds * 3));
            }
        } finally {
            stop.set(true);
            storm.join();
        }
        long end = KernelClock.gettime(ClockId.MONOTONIC.id());
        assertThat(failed.get()).as("the leap storm").isNull();
        for (Tk4j.Run r : results) {
            r.assertPassed();
            assertThat(r.out()).doesNotContain("[FAILED]").contains(", 0 FAILED");
        }
        long okCells = results.stream().flatMap(r -> r.out().lines()).filter(l -> l.matches(
                "consistency \\S+ +CLOCK_(TAI|MONOTONIC|BOOTTIME) +\\[OK\\] +[\\d,]+ reads on \\d+ threads?, 0 violations"))
                .count();
        assertThat(okCells).as("cells with 0 violations").isEqualTo(cells.values().stream().mapToLong(List::size).sum());
        long longest = 0;
        long previous = start;
        for (long at : leapsAtMonotonic) {
            longest = Math.max(longest, at - previous);
            previous = at;
        }
        longest = Math.max(longest, end - previous);
        assertThat(longest).as("longest interval without a leap (ns) of %d leaps; a cell lasts %d s",
                leapsAtMonotonic.size(), CELL_SECONDS).isLessThan(CELL_SECONDS * S);
    }

    static final int CELL_SECONDS = 8;

    static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
