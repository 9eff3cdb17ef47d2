package org.timekeeping4j.vdso;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.timekeeping4j.linux.LibC;

/**
 * What the last discovery of exact mode cost, phase by phase: the wall time and the discovering thread's CPU time
 * of each, kept by the library for its diagnostics and for docs/PERFORMANCE.md ("Discovery's cost by phase").
 *
 * <p>Cheap on purpose, since it runs inside what it measures: a phase ends with {@link #mark}, which charges to it
 * everything since the previous mark (a System.nanoTime and a clock_gettime(CLOCK_THREAD_CPUTIME_ID) through
 * {@link LibC.SelfCalls#CLOCK_GETTIME}, the descriptor the discovery links first anyway: about a microsecond, and no
 * downcall shape of its own); no lambda, no string, no collection. The thread's CPU time at
 * {@link #begin} comes from /proc/thread-self/schedstat (FFM is not up yet there): the kernel's sum_exec_runtime,
 * which may lag the running thread by up to a scheduler tick.
 *
 * <p>Only the thread that called {@link #begin} records (a test calling {@code Discovery.run()} elsewhere adds
 * nothing); {@link #finish} publishes the figures through a volatile, and a later {@link #begin} (a re-discovery)
 * starts over.
 */
public final class DiscoveryPhases {

    /** The JVM's FFM start-up: the first symbol lookup and downcall handle ({@code linux.ColdClockGettime}). */
    public static final int FFM_BOOTSTRAP = 0;
    /** The kernel path's stubs: the vDSO's clock_gettime found, its stubs mapped ({@code machine.ClockGettimeStub}). */
    public static final int KERNEL_STUBS = 1;
    /** Exact mode's classes loaded and its configuration checked, up to the first file it reads. */
    public static final int SETUP = 2;
    /** /proc/self/maps read and [vvar] found, the time namespace asked. */
    public static final int PROC_MAPS = 3;
    /** The layout recognised by content (clock_gettime reads against page 0's slots). */
    public static final int LAYOUT = 4;
    /** The vclock pages probed (PageProbe), clock_mode and the kernel's release checked. */
    public static final int PAGE_PROBES = 5;
    /** Discovery's read mapped (machine code, downcall handle). */
    public static final int MAPPING = 6;
    /** Every served clock checked against brackets of clock_gettime, and the Java conversion against them. */
    public static final int VALIDATION = 7;
    /** What KernelVdso adds after discovery before exact mode serves: the read's entries, the AUX clocks. */
    public static final int ENTRIES = 8;

    private static final String[] NAMES = {"FFM bootstrap", "kernel-path stubs", "exact mode's classes",
        "/proc/self/maps", "layout recognition", "page probes", "mapping the read", "validation brackets",
        "read entries"};

    /** CLOCK_THREAD_CPUTIME_ID (include/uapi/linux/time.h). */
    private static final int CLOCK_THREAD_CPUTIME_ID = 3;

    // Written by the recording thread only; published by finish() through LAST.
    private static Thread owner;
    private static long[] wall;
    private static long[] cpu;
    private static long started;
    private static long firstUse;
    private static long lastWall;
    private static long lastCpu;
    // cpuNanos' timespec and errno buffer, allocated by the first discovery's thread and reused by the later ones:
    // discoveries run one after the other, each on a thread started after the last ended (happens-before).
    private static MemorySegment timespec;
    private static MemorySegment capture;
    private static volatile Report last;

    private DiscoveryPhases() {}

    /**
     * Starts recording on this thread.
     *
     * @param firstUseNanos System.nanoTime of the first read, which this discovery serves after
     */
    public static void begin(long firstUseNanos) {
        owner = Thread.currentThread();
        wall = new long[NAMES.length];
        cpu = new long[NAMES.length];
        firstUse = firstUseNanos;
        lastCpu = schedstatNanos();
        started = lastWall = System.nanoTime();
    }

    /**
     * Ends {@code phase}: charges it the wall and CPU time since the last mark (or {@link #begin}). Nothing where
     * this thread did not begin.
     *
     * @param phase one of the constants of this class
     */
    public static void mark(int phase) {
        if (owner != Thread.currentThread()) {
            return;
        }
        long now = System.nanoTime();
        long c = cpuNanos();
        wall[phase] += now - lastWall;
        if (c >= 0 && lastCpu >= 0 && cpu[phase] >= 0) {
            cpu[phase] += c - lastCpu;
        } else {
            cpu[phase] = -1; // unknown; stays so
        }
        lastWall = now;
        lastCpu = c;
    }

    /** Publishes what this thread recorded since {@link #begin}; nothing where it did not begin. */
    public static void finish() {
        if (owner != Thread.currentThread()) {
            return;
        }
        last = new Report(wall, cpu, started - firstUse, lastWall - started);
        owner = null;
    }

    /** {@return the last finished discovery's figures, or null before one finished} */
    public static Report last() {
        return last;
    }

    /**
     * This thread's CPU time in ns, or -1 where unknown: clock_gettime once the first handle is linked (through
     * the descriptor that handle has, so that measuring links none of its own), /proc before.
     */
    private static long cpuNanos() {
        if (LibC.bootstrap() == null) {
            if (timespec == null) { // once per process, never freed: a few dozen bytes
                timespec = Arena.global().allocate(16, 8);
                capture = Arena.global().allocate(LibC.CAPTURE_STATE);
            }
            int rc = LibC.callInt(LibC.SelfCalls.CLOCK_GETTIME, capture, CLOCK_THREAD_CPUTIME_ID,
                    timespec.address(), 0);
            return rc != 0 ? -1 : timespec.get(JAVA_LONG, 0) * 1_000_000_000L + timespec.get(JAVA_LONG, 8);
        }
        return schedstatNanos();
    }

    /** The first field of /proc/thread-self/schedstat (ns on the CPU), or -1; java.io only: no FFM, no NIO. */
    private static long schedstatNanos() {
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/thread-self/schedstat")) {
            byte[] b = new byte[64];
            int n = in.read(b);
            long v = 0;
            int i = 0;
            for (; i < n && b[i] >= '0' && b[i] <= '9'; i++) {
                v = v * 10 + (b[i] - '0');
            }
            return i > 0 ? v : -1;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * One discovery's cost.
     *
     * @param wallNanos    per phase (the constants of {@link DiscoveryPhases}), wall ns
     * @param cpuNanos     per phase, the discovering thread's CPU ns (-1: unknown)
     * @param startedAfter ns from the first read until discovery began (the thread's start)
     * @param total        wall ns from discovery's start to its last mark
     */
    public record Report(long[] wallNanos, long[] cpuNanos, long startedAfter, long total) {

        /** {@return per phase, wall ns (a copy)} */
        @Override
        public long[] wallNanos() {
            return wallNanos.clone();
        }

        /** {@return per phase, the discovering thread's CPU ns, -1 where unknown (a copy)} */
        @Override
        public long[] cpuNanos() {
            return cpuNanos.clone();
        }

        /** {@return the number of phases} */
        public static int phases() {
            return NAMES.length;
        }

        /** {@return phase {@code i}'s name} */
        public static String name(int i) {
            return NAMES[i];
        }

        /** {@return the discovering thread's CPU ns over every phase, or -1 where unknown} */
        public long totalCpu() {
            long sum = 0;
            for (long c : cpuNanos) {
                if (c < 0) {
                    return -1;
                }
                sum += c;
            }
            return sum;
        }

        /** One line: each phase's wall and CPU ms, then the totals. */
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < wallNanos.length; i++) {
                s.append(NAMES[i]).append(' ').append(ms(wallNanos[i])).append(" ms (cpu ").append(ms(cpuNanos[i]))
                        .append("), ");
            }
            return s.append("total ").append(ms(total)).append(" ms (cpu ").append(ms(totalCpu()))
                    .append("), begun ").append(ms(startedAfter)).append(" ms after the first read").toString();
        }

        private static String ms(long nanos) {
            if (nanos < 0) {
                return "?";
            }
            long tenths = (nanos + 50_000) / 100_000;
            return tenths / 10 + "." + tenths % 10;
        }
    }
}
