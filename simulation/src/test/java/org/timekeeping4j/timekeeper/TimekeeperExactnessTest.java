package org.timekeeping4j.timekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.simulation.counter.SimulatedCounter;

/** The fixed-point read path against exact rational references. */
class TimekeeperExactnessTest {

    private static final long NS = 1_000_000_000L;

    /** The adjusted mult the timekeeper must choose for {@code ppb}, computed independently. */
    private static long expectedMult(long rawMult, long ppb) {
        BigInteger ideal = BigInteger.valueOf(rawMult).multiply(BigInteger.valueOf(NS + ppb));
        BigInteger[] qr = ideal.add(BigInteger.valueOf(NS / 2)).divideAndRemainder(BigInteger.valueOf(NS));
        return qr[1].signum() < 0 ? qr[0].longValue() - 1 : qr[0].longValue();
    }

    @Test
    void shouldMatchAnExactReferenceToTheNanosecondOverAMillionUpdates() {
        SimulatedCounter counter = SimulatedCounter.builder().widthBits(56).frequencyHz(24_000_000)
                .startCycles((1L << 56) - 24_000_000L * 3).frequencyErrorPpb(-3_000).build();
        NtpAdjuster ntp = new NtpAdjuster();
        Timekeeper tk = Timekeeper.builder(counter).adjustment(ntp).monotonicNanos(12_345).build();
        long shift = tk.shift();
        long rawMult = tk.rawMult();
        SplittableRandom rnd = new SplittableRandom(4);

        // Reference: the adjusted line in shifted ns, sum of every interval's cycles times the mult in force.
        BigInteger monoShifted = BigInteger.valueOf(12_345).shiftLeft((int) shift);
        BigInteger rawCycles = BigInteger.ZERO;
        long mult = rawMult;
        long last = counter.read();
        for (int i = 0; i < 1_000_000; i++) {
            counter.advanceNanos(rnd.nextLong(50_000_000)); // up to 50 ms between updates
            long now = counter.read();
            long delta = (now - last) & counter.mask();
            // A read between updates: the reference line extrapolated with the current mult.
            BigInteger mono = monoShifted.add(BigInteger.valueOf(delta).multiply(BigInteger.valueOf(mult)));
            assertThat(tk.monotonicNanos()).isEqualTo(mono.shiftRight((int) shift).longValueExact());
            if (i % 1000 == 0) {
                BigInteger raw = rawCycles.add(BigInteger.valueOf(delta)).multiply(BigInteger.valueOf(rawMult));
                assertThat(tk.monotonicRawNanos()).isEqualTo(BigInteger.valueOf(12_345).add(raw.shiftRight((int) shift)).longValueExact());
            }
            if (i % 997 == 0) {
                ntp.setFrequencyPpb(rnd.nextLong(-500_000, 500_001));
            }
            tk.update();
            monoShifted = mono;
            rawCycles = rawCycles.add(BigInteger.valueOf(delta));
            last = now;
            mult = expectedMult(rawMult, ntp.frequencyPpb());
            assertThat(tk.monoMult()).isEqualTo(mult);
        }
        assertThat(tk.generation()).isEqualTo(1_000_000);
    }

    @Test
    void shouldConvertA32Bit24MHzCounterExactlyAcrossTenThousandWraps() {
        long start = 0xFFFF_FFFFL - 24_000_000L * 2; // two seconds before the first wrap
        SimulatedCounter counter = SimulatedCounter.builder().widthBits(32).frequencyHz(24_000_000).startCycles(start).build();
        Timekeeper tk = Timekeeper.builder(counter).build();
        assertThat(tk.maxIdleNanos()).isLessThan(45 * NS).isGreaterThan(40 * NS); // half of half a 179 s wrap
        SplittableRandom rnd = new SplittableRandom(32);
        BigInteger cycles = BigInteger.ZERO;
        long last = counter.read();
        long wraps = 0;
        while (wraps < 10_000) {
            counter.advanceNanos(rnd.nextLong(tk.maxIdleNanos()));
            long now = counter.read();
            if (now < last) {
                wraps++;
            }
            cycles = cycles.add(BigInteger.valueOf((now - last) & 0xFFFF_FFFFL));
            last = now;
            long expected = cycles.multiply(BigInteger.valueOf(tk.rawMult())).shiftRight(tk.shift()).longValueExact();
            assertThat(tk.monotonicNanos()).isEqualTo(expected);
            assertThat(tk.monotonicRawNanos()).isEqualTo(expected);
            tk.update();
        }
        // And the line still tracks simulated time (mult is rounded to 2^-26 of a ns per cycle: < 0.2 ppb).
        long elapsed = counter.nanos();
        assertThat(Math.abs(tk.monotonicNanos() - elapsed)).isLessThan(elapsed / 1_000_000_000L * 2 + 1_000);
    }

    @Test
    void shouldTakeThe128BitPathForADeltaBeyondMaxCycles() {
        SimulatedCounter counter = SimulatedCounter.builder().frequencyHz(24_000_000).build();
        Timekeeper tk = Timekeeper.builder(counter).build();
        long idle = 30_000 * NS; // 30000 s without an update: 7.2e11 cycles, far beyond max cycles
        counter.advanceNanos(idle);
        long delta = counter.read();
        assertThat(Long.compareUnsigned(delta, tk.maxCycles())).isPositive();
        long expected = BigInteger.valueOf(delta).multiply(BigInteger.valueOf(tk.rawMult())).shiftRight(tk.shift()).longValueExact();
        assertThat(tk.monotonicNanos()).isEqualTo(expected);
        assertThat(tk.convert(delta, ClockId.MONOTONIC)).isEqualTo(expected);
        tk.update(); // accumulation is 128-bit too
        assertThat(tk.monotonicNanos()).isEqualTo(expected);
    }

    @Test
    void shouldClampACounterValueBeforeCycleLastToDeltaZero() {
        ManualCounter counter = new ManualCounter(32, 24_000_000, 0xFFFF_FFF0L);
        Timekeeper tk = Timekeeper.builder(counter).build();
        counter.add(24_000_000); // 1 s, across the wrap
        tk.update();
        long atUpdate = tk.monotonicNanos();
        assertThat(atUpdate).isEqualTo(1_000_000_000L);
        counter.add(-5); // a counter that reads 5 cycles before cycle_last
        assertThat(tk.monotonicNanos()).isEqualTo(atUpdate);
        assertThat(tk.monotonicRawNanos()).isEqualTo(atUpdate);
        tk.update(); // an update does not move cycle_last back either
        counter.add(5);
        assertThat(tk.monotonicNanos()).isEqualTo(atUpdate);
        counter.add(24);
        assertThat(tk.monotonicNanos()).isEqualTo(atUpdate + 1_000);
    }
}
