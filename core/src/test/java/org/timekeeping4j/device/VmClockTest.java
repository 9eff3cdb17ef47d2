package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.SyncStatuses;
import org.timekeeping4j.linux.Errno;
import org.timekeeping4j.linux.TimexReading;
import org.timekeeping4j.testing.AsNobody;

/** VMClock pages written by the test into real files, read through the real mapping. */
class VmClockTest {

    private static final long S = 1_000_000_000L;
    private static final int HERE = VmClock.COUNTER_HERE;
    private static final long BOUND_FLAGS = VmClock.FLAG_TIME_MAXERROR_VALID | VmClock.FLAG_PERIOD_MAXERROR_VALID;
    /** A 3 GHz counter's period at shift 0. */
    private static final long PERIOD_3GHZ = BigInteger.ONE.shiftLeft(64).divide(BigInteger.valueOf(3 * S)).longValue();

    @TempDir
    Path dir;

    private static TimexReading timexWithTai(int tai) {
        return new TimexReading(0, 0, 0, 0, 250, 10, 0, 1, 0, 10_000, tai);
    }

    /** A page serving UTC: this machine's counter, SYNCHRONIZED, 3 GHz, 1.7e9 s at counter 10^12. */
    private static void serving(VmClockPageWriter w, int timeType, long flags) {
        w.begin();
        w.kind(HERE, timeType, 2, flags, 5);
        w.period(0, 1_000_000_000_000L, PERIOD_3GHZ, 0, PERIOD_3GHZ / 100_000); // 10 ppm
        w.time(1_700_000_000L, 1L << 63, 0, 2_000); // .5 s, 2 us
        w.end();
    }

    @Test
    void decodesEveryFieldOfAPage() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            w.begin();
            w.kind(1, 1, 3, 0x3FF, 0xDEAD_BEEF_0000_0001L);
            w.taiOffset(-37);
            w.leap(2, 4);
            w.period(33, -2L, 12345, 678, 910);
            w.time(1_700_000_000L, 1L << 62, 11, 22);
            w.vmGeneration(77);
            w.end();
            VmClockPage p = clock.page();
            assertThat(p).isEqualTo(new VmClockPage(4096, 1, 1, 1, 2, 0xDEAD_BEEF_0000_0001L, 0x3FF, 3, 2, -37, 4,
                    33, -2L, 12345, 678, 910, 1_700_000_000L, 1L << 62, 11, 22, 77));
            assertThat(p.counterName()).isEqualTo("X86_TSC");
            assertThat(p.timeTypeName()).isEqualTo("TAI");
            assertThat(p.clockStatusName()).isEqualTo("FREERUNNING");
            assertThat(p.smearingHintName()).isEqualTo("UTC_SLS");
            assertThat(p.leapIndicatorName()).isEqualTo("POST_POS");
            assertThat(p.flagNames()).containsExactly("TAI_OFFSET_VALID", "DISRUPTION_SOON", "DISRUPTION_IMMINENT",
                    "PERIOD_ESTERROR_VALID", "PERIOD_MAXERROR_VALID", "TIME_ESTERROR_VALID", "TIME_MAXERROR_VALID",
                    "TIME_MONOTONIC", "VM_GEN_COUNTER_PRESENT", "NOTIFICATION_PRESENT");
            assertThat(p.vmGenerationCounterPresent()).isTrue();
            assertThat(clock.vmGenerationCounter()).isEqualTo(77);
            assertThat(clock.disruptionMarker()).isEqualTo(0xDEAD_BEEF_0000_0001L);
            assertThat(clock.description()).isEqualTo("vmclock " + file);
        }
    }

    @Test
    void newerFieldsOnlyWhereTheFlagsAndTheSizeSayTheyExist() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            w.begin();
            w.kind(0xff, 0, 0, 0, 1); // QEMU 10: no time, marker 1, no flags
            w.vmGeneration(99);       // present in memory, but the flag says it is not
            w.end();
            assertThat(clock.page().vmGenerationCounter()).isZero();
            assertThat(clock.page().vmGenerationCounterPresent()).isFalse();
            assertThat(clock.vmGenerationCounter()).isZero();
            assertThat(clock.page().counterName()).isEqualTo("INVALID");
        }
        // A Linux 6.13-sized region (0x68 bytes) with the flag set: the field is past the size.
        Path small = dir.resolve("small");
        try (VmClockPageWriter w = VmClockPageWriter.valid(small)) {
            w.header(0x4b4c4356, 0x68, 1);
            w.kind(0xff, 0, 0, VmClock.FLAG_VM_GEN_COUNTER_PRESENT, 1);
            w.vmGeneration(99);
            try (VmClock clock = VmClock.open(small)) {
                assertThat(clock.page().vmGenerationCounterPresent()).isFalse();
                assertThat(clock.vmGenerationCounter()).isZero();
                assertThat(clock.page().size()).isEqualTo(0x68);
            }
        }
    }

    @Test
    void badPagesAreRefusedInOneLine() throws Exception {
        Path file = dir.resolve("bad");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            w.header(0x12345678, 4096, 1);
            assertThatThrownBy(() -> VmClock.open(file)).isInstanceOf(DeviceException.class)
                    .hasMessage(file + ": not a VMClock page (magic 0x12345678, not \"VCLK\")");
            w.header(0x4b4c4356, 4096, 2);
            assertThatThrownBy(() -> VmClock.open(file))
                    .hasMessage(file + ": unsupported VMClock version 2, expected 1");
            w.header(0x4b4c4356, 16, 1);
            assertThatThrownBy(() -> VmClock.open(file))
                    .hasMessage(file + ": malformed VMClock page: size 16, expected at least 32 and at most 4096");
            w.header(0x4b4c4356, 8192, 1);
            assertThatThrownBy(() -> VmClock.open(file)).hasMessageContaining("size 8192");
        }
        Path tiny = dir.resolve("tiny");
        Files.write(tiny, new byte[10]);
        assertThatThrownBy(() -> VmClock.open(tiny))
                .hasMessage(tiny + ": not a VMClock page (10 bytes, under 32)");
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> VmClock.open(missing))
                .hasMessage(missing + ": open failed: ENOENT (No such file or directory)")
                .extracting(e -> ((DeviceException) e).errno()).isEqualTo(Errno.ENOENT);
        assertThatThrownBy(() -> VmClock.open(dir)).isInstanceOf(DeviceException.class)
                .hasMessage(dir + ": a directory, not a VMClock page (give /dev/vmclock0 or a page file)");
    }

    @Test
    void anUnreadableDeviceNamesTheFix() throws Exception {
        Path file = dir.resolve("vmclock0");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            String expected = file + ": open failed (root-only by default: chmod a+r " + file
                    + ", or run as root): EACCES (Permission denied)";
            if (!System.getProperty("user.name").equals("root")) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
                assertThatThrownBy(() -> VmClock.open(file)).hasMessage(expected);
                return;
            }
            // As root every file opens: ask as nobody, in a JVM of its own (setpriv), as a user would.
            assumeThat(AsNobody.SETPRIV).as("setpriv, to drop root").isExecutable();
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Process p = new ProcessBuilder(AsNobody.java(VmClockTest.class, file.toString())).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(out).isZero();
            assertThat(out.strip()).isEqualTo(expected);
        }
    }

    /** The child of {@link #anUnreadableDeviceNamesTheFix}: opens the page and prints the refusal. */
    public static void main(String[] args) {
        try (VmClock clock = VmClock.open(Path.of(args[0]))) {
            System.out.println("opened " + clock.path());
        } catch (DeviceException e) {
            System.out.println(e.getMessage());
        }
    }

    @Test
    void aSeqCountThatNeverSettlesIsReported() throws Exception {
        Path file = dir.resolve("stuck");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            w.seq(7); // odd: the writer died mid-update
            assertThatThrownBy(clock::disruptionMarker).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(file + ": VMClock seq_count never settled within 100 ms (")
                    .hasMessageEndingWith("now 7, odd: writer stuck mid-update)");
            assertThatThrownBy(clock::page).hasMessageContaining("never settled");
            assertThatThrownBy(() -> clock.now(new TimeBounds())).hasMessageContaining("never settled");
        }
    }

    @Test
    void timeIsRefusedWithTheStatusAsTheReason() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            w.begin();
            w.kind(0xff, 0, 0, 0, 1); // what QEMU 10 publishes
            w.end();
            assertThatThrownBy(() -> clock.now(new TimeBounds())).isInstanceOf(IllegalStateException.class)
                    .hasMessage(file + ": VMClock serves no time: clock_status UNKNOWN");
            for (int status : new int[] {1, 4}) {
                w.begin();
                w.kind(HERE, 0, status, 0, 1);
                w.end();
                assertThatThrownBy(() -> clock.now(new TimeBounds())).hasMessage(file
                        + ": VMClock serves no time: clock_status " + (status == 1 ? "INITIALIZING" : "UNRELIABLE"));
            }
            w.begin();
            w.kind(HERE == 1 ? 0 : 1, 0, 2, 0, 1);
            w.end();
            assertThatThrownBy(() -> clock.now(new TimeBounds())).hasMessageContaining(": counter_id "
                    + (HERE == 1 ? "ARM_VCNT is not this machine's X86_TSC" : "X86_TSC is not this machine's"));
            w.begin();
            w.kind(HERE, 2, 3, 0, 1);
            w.end();
            assertThatThrownBy(() -> clock.now(new TimeBounds()))
                    .hasMessage(file + ": VMClock serves no time: time_type MONOTONIC is neither UTC nor TAI");
            assertThatThrownBy(() -> clock.now(new TimeBounds(), ClockId.MONOTONIC))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void servedTimeIsTheFormulaAtTheCounterWithItsBound() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            serving(w, 0, BOUND_FLAGS);
            SplittableRandom rnd = new SplittableRandom(33);
            TimeBounds b = new TimeBounds();
            for (int i = 0; i < 10_000; i++) {
                long delta = rnd.nextLong(-30 * S, 30 * S); // 10 s either side at 3 GHz
                long counter = 1_000_000_000_000L + delta;
                clock.nowAt(b, false, counter);
                BigInteger[] want = VmClockFormulaTest.time(counter, 1_000_000_000_000L, PERIOD_3GHZ, 0,
                        1_700_000_000L, 1L << 63);
                long nanos = want[0].longValueExact() * S + want[1].longValueExact();
                long bound = VmClockFormulaTest.maxError(delta, PERIOD_3GHZ / 100_000, 0, 2_000);
                assertThat(b.nanos()).isEqualTo(nanos);
                assertThat(b.earliestNanos()).isEqualTo(nanos - bound);
                assertThat(b.latestNanos()).isEqualTo(nanos + bound);
                assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
                assertThat(b.source()).isSameAs(clock);
                assertThat(b.disruptionMarker()).isEqualTo(5);
            }
            // 1 s after counter_value: 1.7e9 + .5 + 1 s, within 2 us + 10 us.
            clock.nowAt(b, false, 1_000_000_000_000L + 3 * S);
            assertThat(b.nanos()).isBetween(1_700_000_001_500_000_000L - 1, 1_700_000_001_500_000_000L);
            assertThat(b.widthNanos()).isBetween(2 * 12_000L, 2 * 12_000L + 2);
            // Without both maximum-error flags: the time, unbounded.
            w.begin();
            w.kind(HERE, 0, 3, VmClock.FLAG_TIME_MAXERROR_VALID, 5);
            w.end();
            clock.nowAt(b, false, 1_000_000_000_000L);
            assertThat(b.nanos()).isEqualTo(1_700_000_000_500_000_000L);
            assertThat(b.earliestNanos()).isEqualTo(Long.MIN_VALUE);
            assertThat(b.latestNanos()).isEqualTo(Long.MAX_VALUE);
            assertThat(b.status()).isEqualTo(TimeBounds.Status.FREE_RUNNING);
            // The real counter read: a page stated at counter 10^12 on a 3 GHz scale, so only "served".
            serving(w, 0, BOUND_FLAGS);
            assertThat(clock.now(b).source()).isSameAs(clock);
            assertThat(b.counter).isNotZero();
        }
    }

    @Test
    void taiAndUtcConvertOnlyWithTheSignAdjtimexConfirms() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            serving(w, 0, BOUND_FLAGS); // UTC, TAI_OFFSET_VALID clear
            TimeBounds b = new TimeBounds();
            long utc = clock.nowAt(b, false, 1_000_000_000_000L).nanos();
            assertThatThrownBy(() -> clock.nowAt(new TimeBounds(), true, 1_000_000_000_000L)).hasMessage(file
                    + ": VMClock page tells UTC and its tai_offset_sec is not valid (TAI_OFFSET_VALID clear): no TAI");
            serving(w, 0, BOUND_FLAGS | VmClock.FLAG_TAI_OFFSET_VALID);
            w.taiOffset(37);
            assertThatThrownBy(() -> clock.learnTaiSign((short) 37, SyncStatuses.of(timexWithTai(0)))).hasMessage(
                    file + ": cannot tell the sign of the VMClock page's tai_offset_sec 37: adjtimex's TAI offset is "
                            + "0 (no daemon set it)");
            assertThatThrownBy(() -> clock.learnTaiSign((short) 37, SyncStatuses.of(timexWithTai(36))))
                    .hasMessageEndingWith("adjtimex's TAI offset is 36, which differs");
            assertThat(clock.learnTaiSign((short) 37, SyncStatuses.of(timexWithTai(37)))).isEqualTo(1);
            assertThat(clock.nowAt(b, true, 1_000_000_000_000L).nanos()).isEqualTo(utc + 37 * S);
            assertThat(b.latestNanos() - b.nanos()).isEqualTo(2_000);
        }
        // A hypervisor that writes UTC - TAI: the same TAI once adjtimex has told the sign.
        Path other = dir.resolve("other");
        try (VmClockPageWriter w = VmClockPageWriter.valid(other); VmClock clock = VmClock.open(other)) {
            serving(w, 1, BOUND_FLAGS | VmClock.FLAG_TAI_OFFSET_VALID); // the page tells TAI
            w.taiOffset(-37);
            assertThat(clock.learnTaiSign((short) -37, SyncStatuses.of(timexWithTai(37)))).isEqualTo(-1);
            TimeBounds b = new TimeBounds();
            long tai = clock.nowAt(b, true, 1_000_000_000_000L).nanos();
            assertThat(tai).isEqualTo(1_700_000_000_500_000_000L);
            assertThat(clock.nowAt(b, false, 1_000_000_000_000L).nanos()).isEqualTo(tai - 37 * S);
        }
    }

    @Test
    void disruptionsSinceAHeldPointAreSeen() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            w.begin();
            w.kind(0xff, 0, 0, 0, 1);
            w.end();
            long marker = clock.disruptionMarker();
            long generation = clock.vmGenerationCounter();
            assertThat(clock.disruptedSince(marker, generation)).isFalse();
            w.begin();
            w.marker(2); // loadvm
            w.end();
            assertThat(clock.disruptedSince(marker, generation)).isTrue();
            marker = clock.disruptionMarker();
            assertThat(clock.disruptedSince(marker, generation)).isFalse();
            // The generation counts only where the flag says it is there.
            w.begin();
            w.vmGeneration(5);
            w.end();
            assertThat(clock.disruptedSince(marker, generation)).isFalse();
            w.begin();
            w.kind(0xff, 0, 0, VmClock.FLAG_VM_GEN_COUNTER_PRESENT, 2);
            w.end();
            assertThat(clock.disruptedSince(marker, 0)).isTrue();
            assertThat(clock.disruptedSince(marker, clock.vmGenerationCounter())).isFalse();
        }
    }

    @Test
    void aFileOffersNoNotifications() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file); VmClock clock = VmClock.open(file)) {
            assertThatThrownBy(() -> clock.awaitChange(Duration.ofMillis(10))).isInstanceOf(DeviceException.class)
                    .hasMessage(file + ": a file gives no notifications (only /dev/vmclockN does): compare "
                            + "disruptionMarker() instead");
        }
    }

    @Test
    void clockBoundIsDisruptedWhileTheDaemonsMarkerLagsThePage() throws Exception {
        Path shm = dir.resolve("shm0");
        Path page = dir.resolve("vmclock0");
        long mono = org.timekeeping4j.KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
        try (ShmWriter cb = ShmWriter.valid(shm); VmClockPageWriter vm = VmClockPageWriter.valid(page);
             ClockBound bound = ClockBound.open(shm, page)) {
            cb.disruptionSupport = 1;
            cb.write(mono, mono + 3600 * S, 5_000, 42, 15_000, 1);
            vm.begin();
            vm.kind(0xff, 0, 0, 0, 42);
            vm.end();
            TimeBounds b = bound.now(new TimeBounds());
            assertThat(b.status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
            assertThat(b.widthNanos()).isLessThan(1_000_000);
            vm.begin();
            vm.marker(43); // migrated; the daemon has not caught up
            vm.end();
            bound.now(b);
            assertThat(b.status()).isEqualTo(TimeBounds.Status.DISRUPTED);
            assertThat(b.earliestNanos()).isEqualTo(Long.MIN_VALUE);
            assertThat(b.latestNanos()).isEqualTo(Long.MAX_VALUE);
            cb.write(mono, mono + 3600 * S, 5_000, 43, 15_000, 1); // the daemon has seen it
            assertThat(bound.now(b).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        }
        // Support announced but no page to compare with: an error naming both, never the daemon's bound.
        Path missing = dir.resolve("nope");
        try (ShmWriter cb = ShmWriter.valid(shm); ClockBound bound = ClockBound.open(shm, missing)) {
            cb.disruptionSupport = 1;
            cb.write(mono, mono + 3600 * S, 5_000, 42, 15_000, 1);
            assertThatThrownBy(() -> bound.now(new TimeBounds())).isInstanceOf(IllegalStateException.class)
                    .hasMessage(shm + ": the ClockBound segment says clock disruption support, and its bound means "
                            + "nothing without the VMClock page: " + missing
                            + ": open failed: ENOENT (No such file or directory)");
            cb.disruptionSupport = 0;
            cb.write(mono, mono + 3600 * S, 5_000, 42, 15_000, 1);
            assertThat(bound.now(new TimeBounds()).status()).isEqualTo(TimeBounds.Status.SYNCHRONIZED);
        }
    }
}
