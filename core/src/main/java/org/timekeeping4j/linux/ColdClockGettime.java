package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * libc's clock_gettime with the least a cold JVM must set up: one symbol, one downcall handle, a per-thread
 * timespec on the Java heap. It serves the clocks the JDK does not read while exact mode and the kernel path's
 * machine code are discovered on another thread, so that a first read of BOOTTIME costs what a bare program's
 * first FFM clock_gettime costs: nothing of {@link LibC}, {@link VdsoSymbols} or {@link ClockGettime} (each
 * brings its own handles and classes) is initialised here.
 *
 * <p>The handle is critical with heap access: clock_gettime neither blocks nor calls back, and the timespec can
 * then be a {@code long[2]} a thread keeps (no native memory to free, nothing allocated per read).
 */
public final class ColdClockGettime {

    /** int clock_gettime(clockid_t, struct timespec *), or null: {@link #UNAVAILABLE} says why. */
    private static final MethodHandle CLOCK_GETTIME;
    /** Null where {@link #CLOCK_GETTIME} is bound, else one line: why not, and what to do. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle h = null;
        String why = Platform.UNSUPPORTED_REASON;
        if (why == null) {
            try {
                Linker linker = Linker.nativeLinker();
                MemorySegment f = linker.defaultLookup().find("clock_gettime").orElse(null);
                if (f == null) {
                    why = "libc has no symbol clock_gettime (glibc or musl expected)";
                } else {
                    synchronized (Platform.FIRST_LINK) { // one FFM start-up at a time: see there
                        h = linker.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS),
                                Linker.Option.critical(true));
                    }
                }
            } catch (IllegalCallerException e) {
                why = Platform.nativeAccessDenied();
            }
        }
        CLOCK_GETTIME = h;
        UNAVAILABLE = why;
    }

    /** Each thread's timespec: a class, not a lambda (a cold JVM's first lambda costs milliseconds). */
    private static final ThreadLocal<MemorySegment> TIMESPEC = new ThreadLocal<>() {
        @Override
        protected MemorySegment initialValue() {
            return MemorySegment.ofArray(new long[2]);
        }
    };

    private ColdClockGettime() {}

    /**
     * clock_gettime({@code clockId}) in nanoseconds.
     *
     * @param clockId the clock id
     * @return the clock's value in ns
     * @throws ErrnoException                where the kernel refuses the clock
     * @throws UnsupportedOperationException where no clock_gettime can be called (native access denied, not Linux)
     */
    public static long nanos(int clockId) {
        if (CLOCK_GETTIME == null) {
            throw new UnsupportedOperationException(UNAVAILABLE);
        }
        MemorySegment ts = TIMESPEC.get();
        int rc;
        try {
            rc = (int) CLOCK_GETTIME.invokeExact(clockId, ts);
        } catch (Throwable t) {
            throw LinuxTime.rethrow(t);
        }
        if (rc != 0) {
            throw new ErrnoException("clock_gettime(" + clockId + ")", LinuxTime.clockGettimeErrno(clockId));
        }
        return ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8);
    }

    /** {@return null where clock_gettime can be called, else why not (one line, with what to do)} */
    public static String unavailable() {
        return UNAVAILABLE;
    }
}
