package org.timekeeping4j.simulation.counter;

import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.timekeeping4j.clocksource.Clocksource;

/**
 * A counter driven by simulated time, for deterministic tests of everything above the clocksource.
 *
 * <p>The counter value at simulated time {@code t} (ns since the simulation started) is
 * <pre>
 *   cycles(t) = start + f/1e9 * (t + err*1e-9*t + drift*1e-18*t^2/2)        (mod 2^width)
 * </pre>
 * for a nominal frequency {@code f} (what the timekeeper is told), a frequency error {@code err} in ppb
 * (the crystal's real offset, unknown to the timekeeper) and a drift in ppb per simulated second (the
 * error grows linearly, as a warming crystal's does). Without drift the rate {@code f*(1e9+err)/1e18}
 * cycles per ns is held as a 64.64 fixed-point number (rounded up to 2^-64 cycles per ns); with drift the
 * formula above is evaluated exactly with BigInteger (allocates: a test tool, not a read path to copy).
 *
 * <p>Simulated time is advanced by hand ({@link #advanceNanos}, {@link #setNanos}: fully deterministic)
 * or, with {@link Builder#scaledRealTime(double)}, follows System.nanoTime scaled by a factor.
 *
 * <h2>Read models</h2>
 * <ul>
 *   <li>Jitter: each read adds a seeded pseudo-random offset in {@code [-jitter, +jitter]} cycles; the
 *       sequence of offsets depends only on the seed and the number of reads, so a single-threaded test
 *       is reproducible. With jitter the counter is no longer monotonic (that is the point: a value
 *       before the timekeeper's cycle_last must be clamped).</li>
 *   <li>Split registers: a 64-bit counter read through two 32-bit registers. Each register access
 *       samples the counter {@code registerReadNanos} of simulated time after the previous one; the
 *       reader reads high, low, high again and retries while the two highs differ (the low half
 *       wrapped in between), as drivers for such timers do. {@link #splitRetries()} counts retries.</li>
 * </ul>
 *
 * <h2>Assumptions and guarantees</h2>
 * Reads are thread-safe and lock-free: simulated time is a volatile long, the jitter sequence an
 * AtomicLong. Writers of simulated time must not move it backwards (setNanos rejects that).
 */
public final class SimulatedCounter extends Clocksource {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long GOLDEN_GAMMA = 0x9E37_79B9_7F4A_7C15L;

    private final long frequency;
    private final long start;
    private final long errorPpb;
    private final long driftPpbPerSecond;
    /** Integer and fraction (2^-64) parts of the rate in cycles per ns, when there is no drift. */
    private final long rateInt;
    private final long rateFrac;
    private final long jitterCycles;
    private final boolean split;
    private final long registerReadNanos;
    private final double realTimeScale;
    private final long realTimeOrigin;

    /** Simulated ns since the start; only increases. Volatile: read by any thread, written by the test. */
    private final AtomicLong nanos = new AtomicLong();
    /** SplitMix64 state of the jitter sequence: one step per read. */
    private final AtomicLong jitterState;
    private final AtomicLong splitRetries = new AtomicLong();

    private SimulatedCounter(Builder b) {
        super(b.name, b.widthBits, b.frequencyHz, b.rating, true, true);
        this.frequency = b.frequencyHz;
        this.start = b.startCycles;
        this.errorPpb = b.errorPpb;
        this.driftPpbPerSecond = b.driftPpbPerSecond;
        // rate = f * (1e9 + err) / 1e18 cycles per ns, as rateInt + rateFrac / 2^64, rounded up: then
        // floor(t * rate) is the exact floor whenever the exact count is a whole number of cycles (a
        // floor-rounded rate would read one cycle short there) and at most one cycle high otherwise.
        BigInteger[] qr = BigInteger.valueOf(b.frequencyHz).multiply(BigInteger.valueOf(NANOS_PER_SECOND + b.errorPpb))
                .shiftLeft(64).divideAndRemainder(BigInteger.TEN.pow(18));
        BigInteger rate = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        this.rateInt = rate.shiftRight(64).longValueExact();
        this.rateFrac = rate.longValue();
        this.jitterCycles = b.jitterCycles;
        this.jitterState = new AtomicLong(b.seed);
        this.split = b.splitRegisters && b.widthBits > 32;
        this.registerReadNanos = b.registerReadNanos;
        this.realTimeScale = b.realTimeScale;
        this.realTimeOrigin = System.nanoTime();
        this.nanos.set(b.startNanos);
    }

    /** {@return a builder of a 64-bit 1 GHz counter in manual mode (its time moves when the test moves it)} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return simulated time now, in ns since the simulation started} */
    public long nanos() {
        if (realTimeScale > 0) {
            return nanos.get() + (long) ((System.nanoTime() - realTimeOrigin) * realTimeScale);
        }
        return nanos.get();
    }

    /**
     * Moves simulated time forward by {@code delta} ns (manual mode only).
     *
     * @param delta nanoseconds to add, not negative
     * @throws IllegalArgumentException if {@code delta} is negative
     * @throws IllegalStateException if this counter follows a scaled real clock
     */
    public void advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("simulated time only moves forward, got " + delta);
        }
        manualOnly();
        nanos.addAndGet(delta);
    }

    /**
     * Sets simulated time to {@code t} ns, not before the current time (manual mode only).
     *
     * @param t the new simulated time, ns
     * @throws IllegalArgumentException if {@code t} is before the current simulated time
     * @throws IllegalStateException if this counter follows a scaled real clock
     */
    public void setNanos(long t) {
        manualOnly();
        long now = nanos.get();
        if (t < now) {
            throw new IllegalArgumentException("simulated time only moves forward: " + t + " < " + now);
        }
        nanos.set(t);
    }

    private void manualOnly() {
        if (realTimeScale > 0) {
            throw new IllegalStateException("this counter follows a scaled real clock");
        }
    }

    /**
     * The noise-free counter value at simulated time {@code t}, masked to the width.
     *
     * @param t simulated time, ns
     * @return the counter value without jitter
     */
    public long cyclesAt(long t) {
        return exactCycles(t) & mask();
    }

    /** {@return how many split-register reads had to retry because the low half wrapped between the two highs} */
    public long splitRetries() {
        return splitRetries.get();
    }

    @Override
    public long read() {
        long t = nanos();
        long value;
        if (split) {
            value = splitRead(t);
        } else {
            value = exactCycles(t);
        }
        if (jitterCycles != 0) {
            value += jitter();
        }
        return value & mask();
    }

    /** High, low, high again; retry while the highs differ. Each register access is a later sample. */
    private long splitRead(long t) {
        for (;;) {
            long hi = exactCycles(t) >>> 32;
            t += registerReadNanos;
            long lo = exactCycles(t) & 0xFFFF_FFFFL;
            t += registerReadNanos;
            long hi2 = exactCycles(t) >>> 32;
            if (hi == hi2) {
                return (hi << 32) | lo;
            }
            splitRetries.incrementAndGet();
            t += registerReadNanos;
        }
    }

    /** A SplitMix64 step mapped to [-jitter, +jitter]. */
    private long jitter() {
        long z = jitterState.addAndGet(GOLDEN_GAMMA);
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        z ^= z >>> 31;
        return Long.remainderUnsigned(z, 2 * jitterCycles + 1) - jitterCycles;
    }

    /** cycles(t) before masking (mod 2^64), per the formula in the class comment. */
    private long exactCycles(long t) {
        if (driftPpbPerSecond == 0) {
            // t * rate, rate = rateInt + rateFrac/2^64; t >= 0. The integer part wraps mod 2^64 like the counter.
            return start + t * rateInt + Math.unsignedMultiplyHigh(t, rateFrac);
        }
        // f * (2e18*t + 2e9*err*t + drift*t^2) / 2e27 = f/1e9 * (t + err*1e-9*t + drift*1e-18*t^2/2)
        BigInteger bt = BigInteger.valueOf(t);
        BigInteger num = bt.multiply(BigInteger.valueOf(2 * NANOS_PER_SECOND).multiply(BigInteger.valueOf(NANOS_PER_SECOND + errorPpb)))
                .add(bt.multiply(bt).multiply(BigInteger.valueOf(driftPpbPerSecond)))
                .multiply(BigInteger.valueOf(frequency));
        BigInteger cycles = num.divide(TWO_E27);
        return start + cycles.longValue();
    }

    private static final BigInteger TWO_E27 = BigInteger.TWO.multiply(BigInteger.TEN.pow(27));

    /** Configuration of a {@link SimulatedCounter}. */
    public static final class Builder {
        private String name = "simulated";
        private int widthBits = 64;
        private long frequencyHz = 1_000_000_000L;
        private int rating = 300;
        private long startCycles;
        private long startNanos;
        private long errorPpb;
        private long driftPpbPerSecond;
        private long jitterCycles;
        private long seed = 1;
        private boolean splitRegisters;
        private long registerReadNanos = 1;
        private double realTimeScale;

        private Builder() {
        }

        /**
         * Names the counter (its {@code Clocksource} name).
         *
         * @param name the name reports show
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the counter width (32 at 24 MHz wraps every ~179 s).
         *
         * @param widthBits 1..64
         * @return this builder
         */
        public Builder widthBits(int widthBits) {
            this.widthBits = widthBits;
            return this;
        }

        /**
         * Sets the nominal frequency the timekeeper is told.
         *
         * @param frequencyHz integer Hz
         * @return this builder
         */
        public Builder frequencyHz(long frequencyHz) {
            this.frequencyHz = frequencyHz;
            return this;
        }

        /**
         * Sets the clocksource rating (the kernel's: higher is preferred).
         *
         * @param rating the rating
         * @return this builder
         */
        public Builder rating(int rating) {
            this.rating = rating;
            return this;
        }

        /**
         * Sets the counter value at simulated time 0 (e.g. a few seconds before the wrap).
         *
         * @param startCycles the counter value at time 0
         * @return this builder
         */
        public Builder startCycles(long startCycles) {
            this.startCycles = startCycles;
            return this;
        }

        /**
         * Sets simulated time at construction (manual mode), default 0.
         *
         * @param startNanos the initial simulated time, ns
         * @return this builder
         */
        public Builder startNanos(long startNanos) {
            this.startNanos = startNanos;
            return this;
        }

        /**
         * Sets the real frequency's error against the nominal one.
         *
         * @param errorPpb parts per billion, |errorPpb| &lt; 10^8
         * @return this builder
         * @throws IllegalArgumentException if the error is 10% or more
         */
        public Builder frequencyErrorPpb(long errorPpb) {
            if (Math.abs(errorPpb) >= 100_000_000L) {
                throw new IllegalArgumentException("frequency error must be below 10%: " + errorPpb);
            }
            this.errorPpb = errorPpb;
            return this;
        }

        /**
         * Sets a linear change of the frequency error.
         *
         * @param drift ppb per simulated second
         * @return this builder
         */
        public Builder driftPpbPerSecond(long drift) {
            this.driftPpbPerSecond = drift;
            return this;
        }

        /**
         * Adds read jitter: each read is off by up to {@code cycles}, from a seeded sequence.
         *
         * @param cycles the amplitude in cycles, 0..2^40
         * @param seed the seed of the jitter sequence
         * @return this builder
         * @throws IllegalArgumentException if {@code cycles} is out of range
         */
        public Builder jitter(long cycles, long seed) {
            if (cycles < 0 || cycles > (1L << 40)) {
                throw new IllegalArgumentException("jitter must be 0..2^40 cycles: " + cycles);
            }
            this.jitterCycles = cycles;
            this.seed = seed;
            return this;
        }

        /**
         * Reads through two 32-bit registers, each access {@code registerReadNanos} after the previous.
         *
         * @param registerReadNanos simulated time one register access takes, ns, not negative
         * @return this builder
         * @throws IllegalArgumentException if {@code registerReadNanos} is negative
         */
        public Builder splitRegisters(long registerReadNanos) {
            if (registerReadNanos < 0) {
                throw new IllegalArgumentException("register read time must be >= 0");
            }
            this.splitRegisters = true;
            this.registerReadNanos = registerReadNanos;
            return this;
        }

        /**
         * Follows System.nanoTime scaled by {@code scale} instead of manual time.
         *
         * @param scale the rate against real time, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code scale} is not positive
         */
        public Builder scaledRealTime(double scale) {
            if (!(scale > 0)) {
                throw new IllegalArgumentException("scale must be positive: " + scale);
            }
            this.realTimeScale = scale;
            return this;
        }

        /** {@return the counter} */
        public SimulatedCounter build() {
            return new SimulatedCounter(this);
        }
    }
}
