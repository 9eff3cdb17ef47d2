package org.timekeeping4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;

/**
 * The hand-over from the JDK's and libc's clocks to what discovery decides (exact mode, or the kernel path's stubs where
 * exact mode refuses, as under qemu-user), in a fresh JVM: two threads start reading before the library is touched,
 * so their first reads start discovery and they keep reading across the switch. Every read of
 * MONOTONIC, MONOTONIC_RAW, BOOTTIME and REALTIME lies inside a bracket of clock_gettime calls made by this test's
 * own FFM binding; MONOTONIC, MONOTONIC_RAW and BOOTTIME never go backwards within a thread, nor across threads:
 * a read is never below a value another thread published (a volatile store) before it. The verdict needs reads
 * on both sides of the switch.
 */
class HandOverTest {

    private static final ClockId[] CLOCKS = {ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME,
        ClockId.REALTIME};
    private static final MethodHandle CLOCK_GETTIME = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    /** Run in the child JVM. Prints one line of counts. */
    public static void main(String[] args) throws Exception {
        int threads = 2; // two readers on two cores still leave the discovery thread room (emulators are slow)
        AtomicLongArray published = new AtomicLongArray(CLOCKS.length);
        long[][] counts = new long[threads][5]; // before, after, outside, backwards, below another thread's
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] c = counts[t];
            Thread r = new Thread(() -> read(start, published, c), "reader-" + t);
            r.start();
            readers.add(r);
        }
        start.countDown();
        for (Thread r : readers) {
            r.join();
        }
        long[] sum = new long[5];
        for (long[] c : counts) {
            for (int i = 0; i < 5; i++) {
                sum[i] += c[i];
            }
        }
        System.out.println("before " + sum[0] + " after " + sum[1] + " outside " + sum[2] + " backwards " + sum[3]
                + " crossthread " + sum[4]);
        System.out.println("stage " + org.timekeeping4j.serving.FastPath.stage());
    }

    private static void read(CountDownLatch start, AtomicLongArray published, long[] counts) {
        long[] last = new long[CLOCKS.length];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8);
            start.await();
            boolean settled = false;
            long afterSwitch = 0;
            long guard = System.nanoTime() + Duration.ofMinutes(20).toNanos(); // a hang guard, not a timing
            for (long i = 0; afterSwitch < 100_000; i++) {
                if ((i & 63) == 0) {
                    settled = org.timekeeping4j.serving.FastPath.await(0); // discovery ended, whatever it decided
                    if (!settled && System.nanoTime() - guard > 0) {
                        throw new IllegalStateException("discovery did not end within 20 minutes");
                    }
                }
                int k = (int) (i % CLOCKS.length);
                long seen = published.get(k); // volatile: a value another thread read before it published it
                long b = kernel(CLOCKS[k], ts);
                long v = Clocks.nanos(CLOCKS[k]);
                long a = kernel(CLOCKS[k], ts);
                counts[settled ? 1 : 0]++;
                afterSwitch += settled ? 1 : 0;
                if (v < b || v > a) {
                    counts[2]++;
                }
                if (CLOCKS[k] != ClockId.REALTIME) {
                    if (v < last[k]) {
                        counts[3]++;
                    }
                    if (v < seen) {
                        counts[4]++;
                    }
                    last[k] = v;
                    published.accumulateAndGet(k, v, Math::max);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long kernel(ClockId clock, MemorySegment ts) {
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(clock.id(), ts);
            if (rc != 0) {
                throw new IllegalStateException("clock_gettime(" + clock + ") failed");
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
    }

    @Test
    void readsAcrossTheSwitchShouldStayInsideTheKernelsBracketsAndNeverGoBack() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                HandOverTest.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as(out).isZero();
        String counts = out.lines().filter(l -> l.startsWith("before ")).findFirst().orElseThrow(
                () -> new AssertionError("no counts from the child: " + out));
        String[] f = counts.split(" ");
        assertThat(Long.parseLong(f[1])).as("reads before discovery ended: " + counts).isPositive();
        assertThat(Long.parseLong(f[3])).as("reads after discovery ended: " + counts).isPositive();
        assertThat(out).containsPattern("stage (EXACT|KERNEL)");
        assertThat(counts).endsWith("outside 0 backwards 0 crossthread 0");
    }
}
