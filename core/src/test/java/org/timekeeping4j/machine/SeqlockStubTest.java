package org.timekeeping4j.machine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.clocksource.CounterArch;
import org.timekeeping4j.linux.Platform;

/**
 * Both x86 builds of the seqlock read (around rdtscp and around lfence;rdtsc) run here, whichever the
 * selection prefers: on a page written by hand (the layout SeqlockStub documents) they must give the same
 * value on the fast path, the slow path and the stale path. The line is slow (a few ns per second of
 * counter), so reads made back to back agree to the ns even where lfence does not order rdtsc (this AMD
 * guest). The exactness against the Java reader is MachineCodeReadTest's; this proves the lfence;rdtsc
 * build, whose branches the template moves, runs the same code.
 */
class SeqlockStubTest {

    private static long[] readBoth(long page, long record, long limit) {
        long a = SeqlockStub.readRdtscp(page, record, limit);
        long b = SeqlockStub.readLfenceRdtsc(page, record, limit);
        long c = SeqlockStub.readRdtscp(page, record, limit);
        return new long[] {a, b, c};
    }

    /** k_j = (base + offset) * 2^64 + xtime * 2^(64 - shift) + (hi * 2^32 - cycle_last) * mult', mod 2^128. */
    private static long[] k(long base, long offset, long cycleLast, long multWide, long hi) {
        BigInteger u64 = BigInteger.ONE.shiftLeft(64);
        BigInteger k = BigInteger.valueOf(base + offset).shiftLeft(64)
                .add(BigInteger.valueOf(hi).shiftLeft(32).subtract(new BigInteger(Long.toUnsignedString(cycleLast)))
                        .multiply(new BigInteger(Long.toUnsignedString(multWide))))
                .mod(BigInteger.ONE.shiftLeft(128));
        return new long[] {k.mod(u64).longValue(), k.shiftRight(64).longValue()};
    }

    /**
     * A page written by hand, from the documented layout with k_j computed on BigInteger, for a counter whose
     * high half is E + j now (j = 0, 1: each constant the fast path can pick). On the fast path the slow
     * path's fields are garbage, so a value that is right proves the fast path served it; then the limits
     * are 0 and the garbage is mended, so the slow path serves; then a stale record.
     */
    @Test
    void bothBuildsShouldReadTheSamePageAlike() throws InterruptedException {
        assumeTrue(CounterArch.HERE == CounterArch.X86_64 && Stubs.RdtscpSeqlock.MAPPED.ok()
                && Stubs.LfenceRdtscSeqlock.MAPPED.ok(), "x86_64 with executable memory only");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(64 + 128, 64);
            int shift = 24;
            long mult = 3; // 3 / 2^24 ns per cycle: the value moves by 1 ns every 5.6 M cycles
            long base = 123_456_789_000L;
            long offset = 1_000_000L;
            long multWide = mult << (64 - shift);
            long r = 64;
            long pa = page.address();
            long ra = pa + r;
            page.set(JAVA_LONG, SeqlockStub.SEQ, 2);
            page.set(JAVA_LONG, SeqlockStub.SHIFT, shift);
            for (int j = 0; j < 2; j++) {
                long now = rdtscp();
                while ((now & 0xFFFF_FFFFL) > 0xC000_0000L) { // within 0.4 s of the next epoch: wait it out
                    Thread.sleep(20);
                    now = rdtscp();
                }
                long epoch = (now >>> 32) - j;
                long cycleLast = (epoch << 32) + ((now & 0xFFFF_FFFFL) >>> 1); // before now, in epoch E = hi - j
                long window = ((epoch + 2) << 32) - cycleLast;
                page.set(JAVA_LONG, r + SeqlockStub.CYCLE_LAST, cycleLast);
                page.set(JAVA_LONG, r + SeqlockStub.MULT_WIDE, multWide);
                long[] kWords = {SeqlockStub.K0, SeqlockStub.K1};
                for (int e = 0; e < 2; e++) {
                    long[] k = k(base, offset, cycleLast, multWide, epoch + e);
                    page.set(JAVA_LONG, r + kWords[e], k[0]);
                    page.set(JAVA_LONG, r + kWords[e] + 8, k[1]);
                }
                page.set(JAVA_LONG, r + SeqlockStub.FRESH_LIMIT, window);
                page.set(JAVA_LONG, r + SeqlockStub.ANY_LIMIT, window);
                page.set(JAVA_LONG, r + SeqlockStub.VALID_CYCLES, -1L);
                page.set(JAVA_LONG, r + SeqlockStub.LEAP_THRESHOLD, Long.MAX_VALUE);
                page.set(JAVA_LONG, r + SeqlockStub.LEAP_STEP, 0);
                for (int path = 0; path < 2; path++) {
                    boolean fast = path == 0;
                    // The slow path's fields: garbage while the fast path must serve.
                    page.set(JAVA_LONG, r + SeqlockStub.BASE, fast ? 0 : base);
                    page.set(JAVA_LONG, r + SeqlockStub.OFFSET, fast ? 0 : offset);
                    page.set(JAVA_LONG, r + SeqlockStub.MULT, fast ? 0 : mult);
                    page.set(JAVA_LONG, r + SeqlockStub.XTIME, 0);
                    if (!fast) {
                        page.set(JAVA_LONG, r + SeqlockStub.FRESH_LIMIT, 0); // every delta takes the slow path
                        page.set(JAVA_LONG, r + SeqlockStub.ANY_LIMIT, 0);
                    }
                    for (long limit : new long[] {SeqlockStub.ANY, SeqlockStub.FRESH}) {
                        long c1 = rdtscp();
                        long[] v = readBoth(pa, ra, limit);
                        long c2 = rdtscp();
                        assertThat(c1 >>> 32).as("the counter's high half, epoch E + %d", j).isEqualTo(epoch + j);
                        assertThat(v[0]).as("epoch E + %d, %s path", j, fast ? "fast" : "slow").isBetween(
                                base + offset + (((c1 - cycleLast) * mult) >>> shift),
                                base + offset + (((c2 - cycleLast) * mult) >>> shift));
                        assertThat(v[1]).as("epoch E + %d, %s path", j, fast ? "fast" : "slow").isBetween(v[0], v[2]);
                    }
                }
            }

            page.set(JAVA_LONG, r + SeqlockStub.FRESH_LIMIT, 0);
            page.set(JAVA_LONG, r + SeqlockStub.VALID_CYCLES, 1000); // far older than 1000 cycles: stale
            assertThat(readBoth(pa, ra, SeqlockStub.FRESH)).containsOnly(SeqlockStub.STALE);
        }
    }

    private static long rdtscp() {
        try {
            return (long) Stubs.RdtscpNoAux.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw Stubs.rethrow(t);
        }
    }
}
