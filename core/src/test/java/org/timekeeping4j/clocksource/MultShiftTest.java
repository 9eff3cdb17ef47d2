package org.timekeeping4j.clocksource;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MultShiftTest {

    /** Expected pairs computed by the kernel's clocks_calc_mult_shift (compiled from C on this machine). */
    @ParameterizedTest
    @CsvSource({
        "2445432000, 600, 6860635, 24",
        "24000000, 178, 2796202667, 26",
        "1000000000, 600, 8388608, 23",
        "19200000, 600, 873813333, 24"})
    void shouldChooseWhatTheKernelChooses(long hz, long maxSeconds, long mult, int shift) {
        assertThat(MultShift.calculate(hz, 1_000_000_000L, maxSeconds)).isEqualTo(new MultShift(mult, shift));
    }

    @Test
    void impliedFrequencyShouldBeWithinHalfAUnitOfMult() {
        MultShift ms = MultShift.calculate(2_445_432_000L, 1_000_000_000L, 600);
        double relative = Math.abs(ms.impliedFrequencyHz() - 2_445_432_000.0) / 2_445_432_000.0;
        assertThat(relative).isLessThanOrEqualTo(0.5 / ms.mult());
    }

    @Test
    void wideConversionShouldEqualExactArithmeticForAnyDelta() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++) {
            long cycles = random.nextLong();
            long mult = random.nextLong(1, 1L << 32);
            int shift = random.nextInt(0, 33);
            long addend = random.nextLong(0, Long.MAX_VALUE);
            BigInteger exact = new BigInteger(Long.toUnsignedString(cycles)).multiply(BigInteger.valueOf(mult))
                    .add(BigInteger.valueOf(addend)).shiftRight(shift);
            assertThat(MultShift.wide(cycles, mult, shift, addend))
                    .as("cycles=%s mult=%d shift=%d", Long.toUnsignedString(cycles), mult, shift)
                    .isEqualTo(exact.longValue());
        }
    }

    @Test
    void maxCyclesShouldLeaveRoomForAnElevenPercentAdjustment() {
        long mult = 6860635;
        long max = Clocksource.maxCycles(-1L, mult);
        BigInteger product = BigInteger.valueOf(max).multiply(BigInteger.valueOf(mult + mult * 11 / 100));
        assertThat(product.bitLength()).isLessThanOrEqualTo(64);
        BigInteger next = BigInteger.valueOf(max + 1).multiply(BigInteger.valueOf(mult + mult * 11 / 100));
        assertThat(next.bitLength()).isGreaterThan(64);
        assertThat(Clocksource.maxCycles(0xFFFF_FFFFL, 2796202667L)).isEqualTo(0xFFFF_FFFFL);
    }
}
