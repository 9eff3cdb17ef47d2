package org.timekeeping4j;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What serves this process's clocks, and why: one description for people and tools ({@code tk4j info} prints it),
 * built by {@link Clocks#diagnostics()} on the caller's thread, never on a read. One vocabulary: a clock is served
 * from the counter in user space or by the kernel's clock_gettime ({@link Serving#fromCounter()}); the process is
 * at a {@link Stage}.
 *
 * @param stage                 what serves the counter-backed clocks now
 * @param why                   why this stage (one line)
 * @param since                 when this stage began
 * @param clocks                every clock's path, with its reason
 * @param ticks                 what {@link Clocks#ticks()} returns, what reads it and at what rate
 * @param vdsoData              the kernel's vDSO data as exact mode reads it
 * @param taiConfirmed          true where CLOCK_TAI is TAI by a current leap-second list: the kernel's TAI offset
 *                              (adjtimex's tai, {@link SyncStatus#taiOffsetSeconds()}) is the TAI-UTC that an
 *                              unexpired list gives now. False where they differ (the offset stays 0 until a daemon
 *                              sets it, and CLOCK_TAI is then UTC), where the list expired, or where nothing could
 *                              be compared
 * @param tai                   that verdict in one line, with the fix where one is needed: e.g. "CLOCK_TAI is UTC +
 *                              0 s, the leap-second list says 37 s: a daemon must set it (chrony: leapsectz
 *                              right/UTC)". The list is tzdata's leap-seconds.list, or the file the system property
 *                              {@code timekeeping4j.leapSeconds} names
 * @param bounds                what {@code BoundedClock.system()} serves from, why that source was chosen, and what
 *                              it said at its last sample, in one line; "not in use" until the process first asks
 *                              for it (choosing samples the source: a diagnostic never does that on its own)
 * @param history               the kernel's parameter history that converts old ticks exactly, in one line: how
 *                              long it is kept, how many sets it holds, how often it looks, and the kernel's updates
 *                              no look saw; or why none is kept (none until an {@link EventRecorder} or a ticks
 *                              conversion asks for one; {@code timekeeping4j.history=0}; exact mode not serving)
 */
public record Diagnostics(Stage stage, String why, Instant since, Map<ClockId, Serving> clocks, Ticks ticks,
                          VdsoData vdsoData, boolean taiConfirmed, String tai, String bounds, String history) {

    /** Copies {@code clocks} in the clocks' order: a description does not change under its reader. */
    public Diagnostics {
        EnumMap<ClockId, Serving> copy = new EnumMap<>(ClockId.class);
        copy.putAll(clocks);
        clocks = Collections.unmodifiableMap(copy);
    }

    /** The stages of a process: discovery, then one path for the counter-backed clocks. */
    public enum Stage {
        /** Exact mode is being discovered (at the start, or after a restore): the kernel's clocks serve. */
        DISCOVERING,
        /** Exact mode serves: the kernel's own vDSO data read with the vDSO's arithmetic. */
        EXACT,
        /** Exact mode refused (or was not asked for): the kernel's clock_gettime serves every clock. */
        KERNEL,
        /** The JVM denies this library native access: the JDK serves MONOTONIC and REALTIME, nothing else. */
        DENIED
    }

    /**
     * Which path serves a clock, and why.
     *
     * @param clock       the clock
     * @param fromCounter true where a counter read in user space serves it (exact mode), false where the kernel's
     *                    clock_gettime does (as {@link Snapshot#isFromCounter()} says of one capture)
     * @param why         one line
     * @param since       when this path began serving the clock
     */
    public record Serving(ClockId clock, boolean fromCounter, String why, Instant since) {}

    /**
     * What {@link Clocks#ticks()} returns. The one answer to "what are ticks": the CLI's {@code tk4j info} and
     * {@code tk4j capture} print and use this record.
     *
     * @param counterCycles whether ticks are counter cycles, so that {@link Clocks#ticksToNanos} converts them with
     *                      the parameters a read at that counter value used (decided by the first discovery, for
     *                      the life of the process); false: ticks are MONOTONIC_RAW ns, and other clocks convert
     *                      through an offset measured at each conversion
     * @param counter       what ticks count: "TSC cycles", "MONOTONIC_RAW nanoseconds", ...
     * @param read          what reads them: "rdtsc", "mrs cntvct_el0", "clock_gettime(CLOCK_MONOTONIC_RAW)"
     * @param frequencyHz   ticks per second now, as the kernel's data states it: the raw line's rate where the
     *                      kernel's clocksource is the counter itself; on kvm-clock, the TSC's rate that the
     *                      pvclock page states (not {@link VdsoData#frequencyHz()}, which is kvm-clock's nanosecond
     *                      counter there); 10^9 for nanoseconds; 0 where the kernel's data does not state it now
     *                      (its clock_mode no longer the counter)
     */
    public record Ticks(boolean counterCycles, String counter, String read, double frequencyHz) {}

    /**
     * The kernel's vDSO data as exact mode found it: the layout recognised, the counter read around it, the
     * counter behind the data now, and the kernel's parameters now (the steered line, CS_HRES_COARSE, is steered by
     * NTP/PTP; the raw line, CS_RAW, never is). The raw line is what converts counter values to MONOTONIC_RAW:
     * {@code raw_ns(c) = rawBaseNanos + (((c - counterBase) * rawMult) >> rawShift)} for counter values within
     * {@code validForNanos} after {@code counterBase}. Zeros where exact mode does not serve.
     *
     * @param serves               true when exact mode serves
     * @param why                  null when it serves, else why not (one line)
     * @param layout               the recognised layout (e.g. "x86_64 vdso_clock (6.15+)"), or null
     * @param counterRead          the ordered counter read of the machine code (e.g. "rdtscp"), or "none"
     * @param vclock               the counter behind the data now and who reads it (e.g. "kvm-clock (clock_mode
     *                             PVCLOCK): read by exact mode from the pvclock page ..."), with the time namespace's
     *                             offsets where there is one; where exact mode does not serve, what it found about
     *                             the vclock pages, or "none"
     * @param seq                  the data's sequence count when read
     * @param steeredMult          mult of the steered line now
     * @param steeredShift         its shift
     * @param rawMult              mult of the raw line now
     * @param rawShift             its shift
     * @param counterBase          the counter value of the kernel's last update (cycle_last); 0 where the raw line
     *                             does not convert the counter now (its clock_mode changed)
     * @param rawBaseNanos         MONOTONIC_RAW at {@code counterBase}
     * @param validForNanos        how long after {@code counterBase} the raw line holds (the kernel's max_cycles)
     * @param monotonicOffsetNanos the time namespace's MONOTONIC (and MONOTONIC_RAW) offset, 0 outside one
     * @param boottimeOffsetNanos  the time namespace's BOOTTIME offset, 0 outside one
     */
    public record VdsoData(boolean serves, String why, String layout, String counterRead, String vclock, long seq,
                         long steeredMult, int steeredShift, long rawMult, int rawShift, long counterBase,
                         long rawBaseNanos, long validForNanos, long monotonicOffsetNanos,
                         long boottimeOffsetNanos) {

        /**
         * The frequency of the counter the raw line converts: 2^rawShift * 10^9 / rawMult. That counter is the
         * kernel clocksource's (on kvm-clock its nanoseconds, 10^9 Hz); {@link Ticks#frequencyHz()} is the rate of
         * {@link Clocks#ticks()}.
         *
         * @return Hz, or 0 where exact mode does not serve
         */
        public double frequencyHz() {
            return rawMult == 0 ? 0 : org.timekeeping4j.clocksource.MultShift.frequencyHz(rawMult, rawShift);
        }

        /**
         * How far the steered line runs from the raw one now: steeredMult / rawMult - 1.
         *
         * @return parts per billion, or 0 where exact mode does not serve
         */
        public double steeringPpb() {
            return rawMult == 0 || steeredShift != rawShift ? 0 : (steeredMult / (double) rawMult - 1) * 1e9;
        }

        /** {@return true where the raw line converts counter values now (exact mode serves, its clock_mode too)} */
        public boolean convertsCounter() {
            return validForNanos > 0;
        }
    }
}
