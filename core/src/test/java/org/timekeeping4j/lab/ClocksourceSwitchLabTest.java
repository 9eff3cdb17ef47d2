package org.timekeeping4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.testing.KernelClock;

/**
 * The guest's clocksource switched between UML's {@code timer} and {@code jiffies} at run time while the library's
 * read paths and {@code tk4j verify consistency} read every clock: no read may go backwards. jiffies can be selected
 * only without high-resolution timers and NO_HZ, so this class runs in a guest booted with
 * {@code highres=off nohz=off} (scripts/lab/uml-suite.sh's second boot; tag lab-clocksource).
 */
@Tag("lab-clocksource")
class ClocksourceSwitchLabTest {

    static final String CURRENT = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    static final List<ClockId> CLOCKS = List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW,
            ClockId.BOOTTIME, ClockId.TAI);

    static String original;

    @BeforeAll
    static void guest() {
        KernelClock.assumeLabGuest();
        String cmdline = org.timekeeping4j.testing.HostFacts.kernelCommandLine();
        assumeTrue(cmdline.contains("highres=off") && cmdline.contains("nohz=off"),
                "jiffies is selectable only without high-resolution timers: boot with highres=off nohz=off "
                        + "(scripts/lab/uml-suite.sh does)");
        assertThat(KernelClock.read("/sys/devices/system/clocksource/clocksource0/available_clocksource"))
                .contains("timer", "jiffies");
        original = KernelClock.read(CURRENT);
    }

    @AfterAll
    static void restore() {
        if (original != null) {
            KernelClock.sysfs(CURRENT, original);
        }
    }

    /** Switches timer <-> jiffies every {@code periodMillis} until stopped; the switches the kernel made. */
    static Thread switcher(AtomicBoolean stop, long periodMillis, List<String> seen, AtomicReference<Throwable> failed) {
        return Thread.ofPlatform().name("clocksource switcher").start(() -> {
            try {
                String next = "jiffies";
                while (!stop.get()) {
                    KernelClock.sysfs(CURRENT, next);
                    String now = KernelClock.read(CURRENT);
                    synchronized (seen) {
                        seen.add(now);
                    }
                    next = now.equals("jiffies") ? "timer" : "jiffies";
                    Thread.sleep(periodMillis); // pacing: each clocksource serves the readers for a period
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
    }

    @Test
    void switchingBetweenTimerAndJiffiesShouldLeaveNoReadPathGoingBackwards() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<LeapSecondLabTest.Checker> checkers = new ArrayList<>();
        for (var p : LeapSecondLabTest.PATHS.entrySet()) {
            for (ClockId c : CLOCKS) {
                checkers.add(new LeapSecondLabTest.Checker(p.getKey(), p.getValue(), c, stop, Long.MIN_VALUE / 2));
            }
        }
        List<String> seen = new ArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        checkers.forEach(Thread::start);
        Thread switcher = switcher(stop, 150, seen, failed);
        // The checkers read while the kernel makes the switches counted below (16: 2.4 s at 150 ms, longer on a slow
        // guest), or until the switcher failed.
        org.awaitility.Awaitility.await("16 clocksource changes").atMost(java.time.Duration.ofSeconds(60))
                .until(() -> switches(seen) >= 16 || failed.get() != null);
        stop.set(true);
        switcher.join();
        for (var k : checkers) {
            k.join();
        }
        assertThat(failed.get()).as("the switcher").isNull();
        assertThat(switches(seen)).as("clocksource changes the kernel made: %s", seen).isGreaterThanOrEqualTo(16);
        for (var k : checkers) {
            assertThat(k.reads).as("%s reads", k.name).isGreaterThan(100);
            assertThat(k.violations).as("%s: reads that went backwards (first: %d ns)", k.name, k.firstDelta).isZero();
        }
    }

    @Test
    void tk4jVerifyConsistencyShouldFindNoViolationWhileTheClocksourceSwitches() throws Exception {
        // At least 12 s (16 switches at 150 ms and more), longer where this guest's reads are slow.
        String seconds = LabSizing.duration(LabSizing.cells("consistency").size(), 12);
        long timeout = 120 + 3 * (long) Double.parseDouble(seconds);
        AtomicBoolean stop = new AtomicBoolean();
        List<String> seen = new ArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread switcher = switcher(stop, 150, seen, failed);
        Tk4j.Run run;
        try {
            run = Tk4j.finish(Tk4j.start("verify", "consistency", "-t", seconds), timeout);
        } finally {
            stop.set(true);
            switcher.join();
        }
        assertThat(failed.get()).as("the switcher").isNull();
        assertThat(switches(seen)).as("clocksource changes during the run: %s", seen).isGreaterThanOrEqualTo(16);
        run.assertPassed();
        assertThat(run.out()).contains(" 0 violations").contains(", 0 FAILED").doesNotContain("[FAILED]");
    }

    static int switches(List<String> seen) {
        synchronized (seen) {
            int n = 0;
            for (int i = 1; i < seen.size(); i++) {
                n += seen.get(i).equals(seen.get(i - 1)) ? 0 : 1;
            }
            return n;
        }
    }
}
