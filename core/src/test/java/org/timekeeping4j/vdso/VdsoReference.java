package org.timekeeping4j.vdso;

import java.math.BigInteger;

/**
 * An independent statement of the vDSO's arithmetic over BigInteger, written from lib/vdso/gettimeofday.c
 * and arch/x86/include/asm/vdso/gettimeofday.h (no shared code with the machine code or VdsoFormula):
 * the value clock_gettime returns, as sec * 10^9 + nsec, for a counter value and one base's fields.
 */
final class VdsoReference {

    static final BigInteger TWO64 = BigInteger.ONE.shiftLeft(64);
    static final BigInteger U64 = TWO64.subtract(BigInteger.ONE);
    static final BigInteger S64_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private VdsoReference() {}

    static BigInteger u(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    /** Fields of one base and the clock's basetime slot. */
    record Base(long cycleLast, long maxCycles, long mask, long mult, int shift, long sec, long nsec) {}

    /** x86_64 6.10+ (vdso_calc_ns with max_cycles; cycles &amp; S64_MAX). */
    static long x86Overflow(Base b, long counter) {
        BigInteger cycles = u(counter).and(S64_MAX);
        BigInteger delta = cycles.subtract(u(b.cycleLast())).mod(TWO64);
        BigInteger ns;
        if (delta.compareTo(u(b.maxCycles())) > 0) {
            if (delta.testBit(62)) {
                ns = u(b.nsec()).shiftRight(b.shift());
            } else {
                // mul_u64_u32_add_u64_shr: exact 128-bit value, truncated to u64 after the shift
                ns = delta.and(S64_MAX).multiply(u(b.mult())).add(u(b.nsec())).shiftRight(b.shift()).and(U64);
            }
        } else {
            ns = delta.multiply(u(b.mult())).add(u(b.nsec())).and(U64).shiftRight(b.shift());
        }
        return total(b, ns);
    }

    /** x86_64 5.3-6.9 (vdso_calc_delta: 0 unless cycles &gt; cycle_last, mask ignored). */
    static long x86Legacy(Base b, long counter) {
        BigInteger cycles = u(counter);
        BigInteger delta = cycles.compareTo(u(b.cycleLast())) > 0
                ? cycles.subtract(u(b.cycleLast())).multiply(u(b.mult())).and(U64) : BigInteger.ZERO;
        BigInteger ns = u(b.nsec()).add(delta).and(U64).shiftRight(b.shift());
        return total(b, ns);
    }

    /** The generic vdso_calc_ns (arm64): the masked delta, u64 products. */
    static long generic(Base b, long counter) {
        BigInteger delta = u(counter).subtract(u(b.cycleLast())).mod(TWO64).and(u(b.mask()));
        BigInteger ns = delta.multiply(u(b.mult())).and(U64).add(u(b.nsec())).and(U64).shiftRight(b.shift());
        return total(b, ns);
    }

    /** vdso_set_timespec's (sec + ns / 10^9, ns % 10^9) as one nanosecond count, wrapped to 64 bits. */
    private static long total(Base b, BigInteger ns) {
        BigInteger[] qr = ns.divideAndRemainder(BigInteger.valueOf(1_000_000_000L));
        BigInteger tvSec = u(b.sec()).add(qr[0]);
        return tvSec.multiply(BigInteger.valueOf(1_000_000_000L)).add(qr[1]).longValue();
    }
}
