package org.timekeeping4j.cli.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.cli.path.ClockPath;
import org.timekeeping4j.cli.path.ClockPaths;
import org.timekeeping4j.cli.path.PathReader;
import org.timekeeping4j.cli.verify.Cell;

/**
 * The JDK call bench compares a clock with: one of the clock's own kind, or none.
 *
 * <ul>
 *   <li>Wall and monotonic clocks: the JDK's own call for the clock ({@code System.nanoTime} for MONOTONIC,
 *       {@code Instant.now} for REALTIME), {@code System.nanoTime} for the others, which the JDK cannot read
 *       ({@link ClockPaths#jdkBaselineClock}).</li>
 *   <li>CPU-time clocks: the JDK's CPU-time call, {@code ThreadMXBean.getCurrentThreadCpuTime} for
 *       THREAD_CPUTIME_ID and {@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime} for
 *       PROCESS_CPUTIME_ID. A CPU-time read is a system call (the vDSO does not serve these clocks), so a ratio to
 *       {@code System.nanoTime} only says that a system call is slower than a vDSO read.</li>
 *   <li>Where the JDK offers no call of the kind here (the management modules not in the run, CPU time not
 *       supported or disabled): none, and no ratio ({@link #NONE}).</li>
 * </ul>
 *
 * <p>The CPU-time calls are looked up reflectively, once, into constant method handles: the CLI's module does not
 * read java.management, and a run without it says {@link #NONE} rather than failing.
 */
final class Baseline {

    /** What a row with no baseline says instead of a ratio. */
    static final String NONE = "no JDK baseline of this kind";

    /** The calls' names in rows, short enough for the table's 100 columns; the page's key names their beans. */
    static final String THREAD_CPU_CALL = "getCurrentThreadCpuTime";
    static final String PROCESS_CPU_CALL = "getProcessCpuTime";

    // Before the handles: their lookups use it.
    private static final MethodType LONG = MethodType.methodType(long.class);

    // ()J each, bound to the JDK's bean; null where the JDK offers no such call here. Static final so that the JIT
    // inlines the call as it does System.nanoTime's.
    private static final MethodHandle THREAD_CPU = threadCpuTime();
    private static final MethodHandle PROCESS_CPU = processCpuTime();

    private Baseline() {}

    /** The JDK cell {@code clock} is compared with, or empty where the JDK has no call of its kind. */
    static Optional<Cell> of(ClockId clock) {
        if (isCpuTime(clock)) {
            return CPU_TIME.serves(clock) ? Optional.of(new Cell(CPU_TIME, clock)) : Optional.empty();
        }
        return Optional.of(new Cell(ClockPaths.JDK, ClockPaths.jdkBaselineClock(clock)));
    }

    static boolean isCpuTime(ClockId clock) {
        return clock == ClockId.THREAD_CPUTIME_ID || clock == ClockId.PROCESS_CPUTIME_ID;
    }

    /**
     * The JDK's CPU-time calls as a path named {@code jdk}: bench's rows for them sit where the jdk path's do, under
     * the CPU-time clocks. Bench's alone: verify and the path list do not know it.
     */
    static final ClockPath CPU_TIME = new ClockPath() {
        @Override
        public String name() {
            return "jdk";
        }

        @Override
        public String description() {
            return "ThreadMXBean." + THREAD_CPU_CALL + " for THREAD_CPUTIME_ID, OperatingSystemMXBean."
                    + PROCESS_CPU_CALL + " for PROCESS_CPUTIME_ID";
        }

        @Override
        public boolean serves(ClockId clock) {
            return (clock == ClockId.THREAD_CPUTIME_ID && THREAD_CPU != null)
                    || (clock == ClockId.PROCESS_CPUTIME_ID && PROCESS_CPU != null);
        }

        @Override
        public PathReader reader(ClockId clock) {
            if (!serves(clock)) {
                throw new UnsupportedOperationException("the JDK has no CPU-time call for " + clock.kernelName()
                        + " here");
            }
            return clock == ClockId.THREAD_CPUTIME_ID ? Baseline::threadCpuNanos : Baseline::processCpuNanos;
        }

        @Override
        public long agreementBoundNanos(ClockId clock) {
            // getProcessCpuTime is times(2): clock ticks (10 ms at USER_HZ 100), truncated, user and system apart.
            return clock == ClockId.THREAD_CPUTIME_ID ? 0 : 20_000_000L;
        }

        @Override
        public String callName(ClockId clock) {
            return clock == ClockId.THREAD_CPUTIME_ID ? THREAD_CPU_CALL : PROCESS_CPU_CALL;
        }
    };

    private static long threadCpuNanos() {
        try {
            return (long) THREAD_CPU.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static long processCpuNanos() {
        try {
            return (long) PROCESS_CPU.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        return t instanceof RuntimeException re ? re : new IllegalStateException(t);
    }

    /** ThreadMXBean.getCurrentThreadCpuTime bound to the JDK's bean, where it is supported and enabled. */
    private static MethodHandle threadCpuTime() {
        try {
            Object bean = bean("getThreadMXBean");
            Class<?> type = Class.forName("java.lang.management.ThreadMXBean");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            boolean on = (boolean) lookup.findVirtual(type, "isCurrentThreadCpuTimeSupported",
                    MethodType.methodType(boolean.class)).invoke(bean)
                    && (boolean) lookup.findVirtual(type, "isThreadCpuTimeEnabled",
                    MethodType.methodType(boolean.class)).invoke(bean);
            return on ? works(lookup.findVirtual(type, "getCurrentThreadCpuTime", LONG).bindTo(bean)) : null;
        } catch (Throwable t) { // no java.management in this run, or a JDK without the call
            return null;
        }
    }

    /** com.sun.management.OperatingSystemMXBean.getProcessCpuTime bound to the JDK's bean, where it answers. */
    private static MethodHandle processCpuTime() {
        try {
            Object bean = bean("getOperatingSystemMXBean");
            Class<?> type = Class.forName("com.sun.management.OperatingSystemMXBean");
            if (!type.isInstance(bean)) {
                return null;
            }
            return works(MethodHandles.publicLookup().findVirtual(type, "getProcessCpuTime", LONG).bindTo(bean));
        } catch (Throwable t) { // no jdk.management in this run
            return null;
        }
    }

    private static Object bean(String getter) throws Throwable {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Class<?> type = factory.getMethod(getter).getReturnType();
        return MethodHandles.publicLookup().findStatic(factory, getter, MethodType.methodType(type)).invoke();
    }

    /** {@code call}, or null where it answers -1 (the JDK's "not supported here"). */
    private static MethodHandle works(MethodHandle call) throws Throwable {
        return (long) call.invokeExact() >= 0 ? call : null;
    }
}
