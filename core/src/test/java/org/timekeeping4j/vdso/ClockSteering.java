package org.timekeeping4j.vdso;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.timekeeping4j.testing.KernelClock.ADJ_FREQUENCY;
import static org.timekeeping4j.testing.KernelClock.ADJ_MICRO;
import static org.timekeeping4j.testing.KernelClock.ADJ_NANO;
import static org.timekeeping4j.testing.KernelClock.ADJ_OFFSET;
import static org.timekeeping4j.testing.KernelClock.ADJ_STATUS;
import static org.timekeeping4j.testing.KernelClock.ADJ_TICK;
import static org.timekeeping4j.testing.KernelClock.ADJ_TIMECONST;
import static org.timekeeping4j.testing.KernelClock.CLOCK_REALTIME;
import static org.timekeeping4j.testing.KernelClock.STA_NANO;
import static org.timekeeping4j.testing.KernelClock.STA_PLL;
import static org.timekeeping4j.testing.KernelClock.STA_UNSYNC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.testing.HostSteering;
import org.timekeeping4j.testing.KernelClock;

/**
 * Steers the kernel's clock as a time daemon does (adjtimex: frequency, PLL offset, tick; clock_settime
 * steps), for tests that {@link HostSteering} lets steer ({@link KernelClock} refuses every write without the
 * opt-in), and puts back what it found ({@link #close}, from a finally block or try-with-resources): frequency,
 * tick, PLL time constant and status; the offset being slewed is set to 0 and a step is undone by the opposite
 * step.
 */
final class ClockSteering implements AutoCloseable {

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment timex = arena.allocate(LibC.Timex.SIZE, 8);
    private final long freq;
    private final long tick;
    private final long constant;
    private final int status;
    private long stepped;

    ClockSteering() {
        KernelClock.requireMaySteer("steering the kernel clock");
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

    /**
     * Flips the frequency offset between +{@code ppm} and -{@code ppm}, {@code flips} times, each held for
     * {@code holdNanos} while {@code during} runs in a loop (or the thread sleeps where it is null): the kernel runs
     * its ticks under each flip. Time passing is the point: nothing is awaited.
     *
     * @return the range of the kernel's mult seen after each flip (the lowest, then the highest), for the caller's
     *         check that the steering reached the kernel
     */
    long[] flipFrequency(int flips, double ppm, long holdNanos, Runnable during) throws InterruptedException {
        long[] range = {Long.MAX_VALUE, Long.MIN_VALUE};
        for (int i = 0; i < flips; i++) {
            frequencyPpm(i % 2 == 0 ? ppm : -ppm);
            if (during == null) {
                Thread.sleep(holdNanos / 1_000_000L, (int) (holdNanos % 1_000_000L));
            } else {
                long t0 = System.nanoTime();
                while (System.nanoTime() - t0 < holdNanos) {
                    during.run();
                }
            }
            long mult = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE).mult(); // what the kernel converts with now
            range[0] = Math.min(range[0], mult);
            range[1] = Math.max(range[1], mult);
        }
        return range;
    }

    /** A PLL phase correction of {@code nanos}, slewed by the kernel (STA_PLL, ADJ_OFFSET | ADJ_NANO). */
    void pllOffsetNanos(long nanos) {
        timex.fill((byte) 0);
        timex.set(JAVA_INT, LibC.Timex.STATUS, (status | STA_PLL | STA_NANO) & ~STA_UNSYNC);
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
        KernelClock.settime(CLOCK_REALTIME, KernelClock.gettime(CLOCK_REALTIME) + nanos);
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
        KernelClock.adjtime(CLOCK_REALTIME, timex);
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
