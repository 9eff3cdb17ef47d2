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
 * The hand-over from the kernel's clocks to exact mode, in a fresh JVM: three threads start reading before the
 * library is touched, so their first reads start discovery and they keep reading across the switch. Every read of
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
        int threads = 3;
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
    }

    private static void read(CountDownLatch start, AtomicLongArray published, long[] counts) {
        long[] last = new long[CLOCKS.length];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8);
            start.await();
            boolean exact = false;
            long afterSwitch = 0;
            for (long i = 0; afterSwitch < 200_000 && i < 50_000_000L; i++) {
                if ((i & 63) == 0) {
                    exact = Clocks.awaitFastPath(Duration.ZERO);
                }
                int k = (int) (i % CLOCKS.length);
                long seen = published.get(k); // volatile: a value another thread read before it published it
                long b = kernel(CLOCKS[k], ts);
                long v = Clocks.nanos(CLOCKS[k]);
                long a = kernel(CLOCKS[k], ts);
                counts[exact ? 1 : 0]++;
                afterSwitch += exact ? 1 : 0;
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
        assertThat(Long.parseLong(f[1])).as("reads before exact mode served: " + counts).isPositive();
        assertThat(Long.parseLong(f[3])).as("reads after exact mode served: " + counts).isPositive();
        assertThat(counts).endsWith("outside 0 backwards 0 crossthread 0");
    }
}
