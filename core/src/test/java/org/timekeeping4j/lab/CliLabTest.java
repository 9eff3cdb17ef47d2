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

/** The CLI against the guest's real drivers and across real leap seconds: tk4j pps, phc, verify consistency. */
@Tag("lab")
class CliLabTest {

    static final long S = GuestKernel.NANOS;
    static final long DAY = 86_400 * S;

    @BeforeAll
    static void guest() throws Exception {
        GuestKernel.require();
        PtpLabTest.mockPhc();
        Tk4j.jar();
    }

    @AfterEach
    void clear() {
        GuestKernel.setStatus(0);
    }

    @Test
    void tk4jPpsShouldPrintTheKtimersEventsWithConsecutiveSequences() throws Exception {
        Tk4j.Run r = Tk4j.run("pps", "/dev/pps0", "--count", "3", "--timeout", "3");
        r.assertPassed();
        assertThat(r.out()).contains("/dev/pps0: capabilities 0x").contains("assert canwait");
        Matcher m = Pattern.compile("source /dev/pps0 - assert (\\d+)\\.(\\d{9}), sequence: (\\d+)").matcher(r.out());
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

        GuestKernel.sysfs("/sys/kernel/time/aux_clocks/0/aux_clock_enable", "1");
        Tk4j.Run aux = Tk4j.run("phc", "/dev/ptp0", "--samples", "2", "--clock", "CLOCK_AUX+0");
        aux.assertPassed();
        assertThat(aux.out().lines().filter(l -> l.matches("/dev/ptp0 CLOCK_AUX\\+0 offset +-?\\d+ ns delay +\\d+ ns "
                + "method CLOCK_GETTIME"))).hasSize(2);
        assertThat(aux.out()).contains("refused by the driver for CLOCK_AUX+0: PRECISE, EXTENDED");
    }

    /**
     * Leaps one after another while {@code tk4j verify consistency} runs on TAI, MONOTONIC and BOOTTIME over every
     * path: each leap steps REALTIME forward to 1.5 s before the next UTC midnight and sets STA_INS (STA_DEL every
     * other time), so every cell of the run, each longer than the longest interval between two leaps, reads across
     * at least one leap.
     */
    @Test
    void tk4jVerifyConsistencyShouldFindNoViolationAcrossLeapSecondsOnEveryPath() throws Exception {
        String[] clocks = {"-c", "TAI", "-c", "MONOTONIC", "-c", "BOOTTIME"};
        Tk4j.Run plan = Tk4j.run(concat(new String[] {"verify", "consistency", "-t", "0.3", "--json"}, clocks));
        plan.assertPassed();
        int cells = plan.out().split("\"mode\"", -1).length - 2; // one "mode" per check, one for the run
        assertThat(cells).as("cells of the run: %s", plan.out()).isGreaterThanOrEqualTo(6);
        double cellSeconds = 5;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Long> leapsAtMonotonic = new ArrayList<>();
        Thread storm = Thread.ofPlatform().name("leap storm").start(() -> {
            try {
                int flag = GuestKernel.STA_INS;
                while (!stop.get()) {
                    long rt = GuestKernel.gettime(ClockId.REALTIME.id());
                    long midnight = Math.floorDiv(rt + 3 * S / 2, DAY) * DAY + DAY;
                    GuestKernel.settime(ClockId.REALTIME.id(), midnight - 3 * S / 2); // forward: nothing goes back
                    int tai = SyncStatus.read().taiOffsetSeconds();
                    GuestKernel.setStatus(flag);
                    long deadline = GuestKernel.gettime(ClockId.MONOTONIC.id()) + 4 * S;
                    while (SyncStatus.read().taiOffsetSeconds() == tai && !stop.get()) {
                        assertThat(GuestKernel.gettime(ClockId.MONOTONIC.id())).as("leap within 4 s").isLessThan(deadline);
                        Thread.sleep(10);
                    }
                    synchronized (leapsAtMonotonic) {
                        leapsAtMonotonic.add(GuestKernel.gettime(ClockId.MONOTONIC.id()));
                    }
                    flag = flag == GuestKernel.STA_INS ? GuestKernel.STA_DEL : GuestKernel.STA_INS;
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        Tk4j.Run r;
        long start = GuestKernel.gettime(ClockId.MONOTONIC.id());
        try {
            r = Tk4j.finish(Tk4j.start(concat(new String[] {"verify", "consistency", "-t",
                    String.valueOf(cells * cellSeconds)}, clocks)), 60 + (long) (cells * cellSeconds));
        } finally {
            stop.set(true);
            storm.join();
        }
        long end = GuestKernel.gettime(ClockId.MONOTONIC.id());
        assertThat(failed.get()).as("the leap storm").isNull();
        r.assertPassed();
        assertThat(r.out()).doesNotContain("FAILED").contains("TAI").contains("BOOTTIME");
        assertThat(r.out().lines().filter(l -> l.contains(" 0 violations"))).as("cells with 0 violations")
                .hasSize(cells);
        long longest = 0;
        long previous = start;
        for (long at : leapsAtMonotonic) {
            longest = Math.max(longest, at - previous);
            previous = at;
        }
        longest = Math.max(longest, end - previous);
        assertThat(leapsAtMonotonic.size()).as("leaps during the run").isGreaterThanOrEqualTo(cells);
        assertThat(longest).as("longest interval without a leap (ns); each cell lasts %s s", cellSeconds)
                .isLessThan((long) (cellSeconds * S) / 2);
    }

    static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
