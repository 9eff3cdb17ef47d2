package org.timekeeping4j.vdso;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.testing.HostSteering;

/**
 * Steers the kernel's clock as a time daemon does (adjtimex: frequency, PLL offset, tick; clock_settime
 * steps), for tests that {@link HostSteering} lets steer (it refuses to start without the opt-in), and puts
 * back what it found ({@link #close}, from a finally block or try-with-resources): frequency, tick, PLL time constant and status; the offset being slewed is set to 0
 * and a step is undone by the opposite step.
 */
final class ClockSteering implements AutoCloseable {

    static final int ADJ_OFFSET = 0x0001;
    static final int ADJ_FREQUENCY = 0x0002;
    static final int ADJ_STATUS = 0x0010;
    static final int ADJ_TIMECONST = 0x0020;
    static final int ADJ_MICRO = 0x1000;
    static final int ADJ_NANO = 0x2000;
    static final int ADJ_TICK = 0x4000;
    static final int STA_PLL = 0x0001;
    static final int STA_NANO = 0x2000;
    private static final int CLOCK_REALTIME = 0;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle ADJTIMEX = LINKER.downcallHandle(LINKER.defaultLookup().find("adjtimex")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SETTIME = LINKER.downcallHandle(LINKER.defaultLookup().find("clock_settime")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment timex = arena.allocate(LibC.Timex.SIZE, 8);
    private final long freq;
    private final long tick;
    private final long constant;
    private final int status;
    private long stepped;

    ClockSteering() {
        if (!"true".equalsIgnoreCase(String.valueOf(System.getProperty(HostSteering.PROPERTY)).trim())) {
            throw new IllegalStateException("steering the kernel clock without -D" + HostSteering.PROPERTY
                    + "=true: call HostSteering.assumeMaySteer() first");
        }
        adjtimex(0, 0, 0, 0, 0);
        freq = timex.get(JAVA_LONG, LibC.Timex.FREQ);
        tick = timex.get(JAVA_LONG, LibC.Timex.TICK);
        constant = timex.get(JAVA_LONG, LibC.Timex.CONSTANT);
        status = timex.get(JAVA_INT, LibC.Timex.STATUS);
    }

    /** The frequency offset in ppm (adjtimex ADJ_FREQUENCY; the kernel's limit is 500 ppm). */
    void frequencyPpm(double ppm) {
        adjtimex(ADJ_FREQUENCY, 0, Math.round(ppm * 65536), 0, 0);
    }

    /** A PLL phase correction of {@code nanos}, slewed by the kernel (STA_PLL, ADJ_OFFSET | ADJ_NANO). */
    void pllOffsetNanos(long nanos) {
        timex.fill((byte) 0);
        timex.set(JAVA_INT, LibC.Timex.STATUS, (status | STA_PLL | STA_NANO) & ~0x0040 /* STA_UNSYNC */);
        timex.set(JAVA_LONG, LibC.Timex.CONSTANT, 2);
        call(ADJ_STATUS | ADJ_TIMECONST | ADJ_NANO);
        adjtimex(ADJ_OFFSET | ADJ_NANO, nanos, 0, 0, 0);
    }

    /** The tick length in us (adjtimex ADJ_TICK; 10000 at USER_HZ 100, +-10%). */
    void tickMicros(long us) {
        adjtimex(ADJ_TICK, 0, 0, us, 0);
    }

    /** Steps REALTIME by {@code nanos} (clock_settime); {@link #close} steps it back. */
    void step(long nanos) {
        MemorySegment ts = arena.allocate(16, 8);
        org.timekeeping4j.linux.LinuxTime.clockGettime(CLOCK_REALTIME, ts);
        long t = ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8) + nanos;
        ts.set(JAVA_LONG, 0, Math.floorDiv(t, 1_000_000_000L));
        ts.set(JAVA_LONG, 8, Math.floorMod(t, 1_000_000_000L));
        try {
            int rc = (int) SETTIME.invokeExact(CLOCK_REALTIME, ts);
            if (rc != 0) {
                throw new IllegalStateException("clock_settime refused");
            }
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        stepped += nanos;
    }

    private void adjtimex(int modes, long offset, long freqScaled, long tickUs, long unused) {
        timex.fill((byte) 0);
        timex.set(JAVA_LONG, LibC.Timex.OFFSET, offset);
        timex.set(JAVA_LONG, LibC.Timex.FREQ, freqScaled);
        timex.set(JAVA_LONG, LibC.Timex.TICK, tickUs);
        call(modes);
    }

    private void call(int modes) {
        timex.set(JAVA_INT, LibC.Timex.MODES, modes);
        try {
            int rc = (int) ADJTIMEX.invokeExact(timex);
            if (rc < 0) {
                throw new IllegalStateException("adjtimex(modes=0x" + Integer.toHexString(modes) + ") refused");
            }
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /** Puts the clock state back: frequency, tick, status, time constant, no pending offset, steps undone. */
    @Override
    public void close() {
        try {
            if (stepped != 0) {
                step(-stepped);
            }
            timex.fill((byte) 0);
            timex.set(JAVA_LONG, LibC.Timex.FREQ, freq);
            timex.set(JAVA_LONG, LibC.Timex.TICK, tick);
            timex.set(JAVA_LONG, LibC.Timex.CONSTANT, constant);
            timex.set(JAVA_INT, LibC.Timex.STATUS, status | STA_PLL); // keep PLL on while the offset is zeroed
            call(ADJ_STATUS | ADJ_FREQUENCY | ADJ_TICK | ADJ_TIMECONST);
            timex.set(JAVA_LONG, LibC.Timex.OFFSET, 0);
            call(ADJ_OFFSET | ADJ_NANO);
            timex.set(JAVA_INT, LibC.Timex.STATUS, status);
            // STA_NANO is not an ADJ_STATUS bit: ADJ_NANO set it above, ADJ_MICRO clears it where it was clear.
            call(ADJ_STATUS | ((status & STA_NANO) != 0 ? ADJ_NANO : ADJ_MICRO));
        } finally {
            arena.close();
        }
    }
}
