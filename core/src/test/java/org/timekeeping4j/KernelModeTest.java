package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Kernel mode, where exact mode refuses (forced here with {@code timekeeping4j.vdso=off} in a child JVM, since the
 * mode is decided once per process): every counter clock is clock_gettime's, {@code Clocks.ticks()} is
 * MONOTONIC_RAW nanoseconds, snapshots say they come from the kernel, and the serving paths name exact mode's
 * refusal. The checks run in {@link Main}; this test reads its one line.
 */
class KernelModeTest {

    @Test
    void whereExactModeRefusesTheKernelShouldServeEveryRead() throws Exception {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:-UsePerfData", "-Dtimekeeping4j.vdso=off", "-cp",
                System.getProperty("java.class.path"), Main.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("kernel mode OK");
    }

    /** The child JVM's checks: exits 1 with the first broken promise. */
    public static final class Main {
        public static void main(String[] args) {
            Diagnostics d = Clocks.diagnostics();
            check(!d.vdsoData().serves(), "exact mode serves despite timekeeping4j.vdso=off");
            check(!Clocks.awaitExactMode(java.time.Duration.ofSeconds(1)), "awaitExactMode says the counter serves");
            check(!d.ticks().counterCycles(), "ticks are counter cycles");
            check(!d.vdsoData().convertsCounter(), "the kernel's raw line converts ticks: " + d.vdsoData());
            check(d.stage() == Diagnostics.Stage.KERNEL, "stage " + d.stage());
            for (ClockId c : List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME,
                    ClockId.TAI)) {
                Diagnostics.Serving s = d.clocks().get(c);
                check(!s.fromCounter() && s.why().contains("timekeeping4j.vdso=off"),
                        c + " is served by " + s);
                long k0 = KernelClocks.nanos(c);
                long v = Clocks.nanos(c);
                long k1 = KernelClocks.nanos(c);
                check(k0 <= v && v <= k1, c + ": " + v + " outside the kernel's bracket " + k0 + ".." + k1);
                Snapshot snap = new Snapshot();
                Clocks.snapshot(c, snap);
                check(!snap.isFromCounter() && snap.ticks() == 0, c + ": a snapshot from a counter: " + snap);
            }
            long r0 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
            long t = Clocks.ticks();
            long r1 = KernelClocks.nanos(ClockId.MONOTONIC_RAW);
            check(r0 <= t && t <= r1, "ticks " + t + " are not MONOTONIC_RAW ns (" + r0 + ".." + r1 + ")");
            check(Clocks.ticksToNanos(t, ClockId.MONOTONIC_RAW) == t, "MONOTONIC_RAW ticks convert to another value");
            System.out.println("kernel mode OK");
        }

        private static void check(boolean ok, String why) {
            if (!ok) {
                System.out.println("kernel mode broken: " + why);
                System.exit(1);
            }
        }
    }
}
