package org.timekeeping4j.clocksource;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.linux.Platform;

/**
 * Both x86 builds of the seqlock read (around rdtscp and around lfence;rdtsc) run here, whichever the
 * selection prefers: on a page written by hand (the layout SeqlockReader documents) they must give the same
 * value on the fast path, the slow path and the stale path. The line is slow (a few ns per second of
 * counter), so reads made back to back agree to the ns even where lfence does not order rdtsc (this AMD
 * guest). The exactness against the Java reader is MachineCodeReadTest's; this proves the lfence;rdtsc
 * build, whose branches the template moves, runs the same code.
 */
class SeqlockReaderTest {

    private static long[] readBoth(long page, long record, long limit) {
        long a = SeqlockReader.readRdtscp(page, record, limit);
        long b = SeqlockReader.readLfenceRdtsc(page, record, limit);
        long c = SeqlockReader.readRdtscp(page, record, limit);
        return new long[] {a, b, c};
    }

    @Test
    void bothBuildsShouldReadTheSamePageAlike() {
        assumeTrue(Platform.ARCH == Platform.Arch.X86_64 && SeqlockReader.rdtscp() != null
                && SeqlockReader.lfenceRdtsc() != null, "x86_64 with executable memory only");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(64 + 128, 64);
            int shift = 24;
            HardwareCounter counter = HardwareCounter.create(CounterFlavour.X86_RDTSCP, 1e9);
            long now = counter.read();
            long mult = 3; // 3 / 2^24 ns per cycle: the value moves by 1 ns every 5.6 M cycles
            long base = 123_456_789_000L;
            long offset = 1_000_000L;
            long cycleLast = now - 1_000_000_000L;
            long multWide = mult << (64 - shift);
            long kLow = -(cycleLast * multWide);
            long kHigh = base + offset - Math.unsignedMultiplyHigh(cycleLast, multWide) - (kLow != 0 ? 1 : 0);
            page.set(JAVA_LONG, SeqlockReader.SEQ, 2);
            page.set(JAVA_LONG, SeqlockReader.SHIFT, shift);
            long r = 64;
            page.set(JAVA_LONG, r + SeqlockReader.CYCLE_LAST, cycleLast);
            page.set(JAVA_LONG, r + SeqlockReader.MULT_WIDE, multWide);
            page.set(JAVA_LONG, r + SeqlockReader.K_LOW, kLow);
            page.set(JAVA_LONG, r + SeqlockReader.K_HIGH, kHigh);
            page.set(JAVA_LONG, r + SeqlockReader.FRESH_LIMIT, Long.MIN_VALUE);
            page.set(JAVA_LONG, r + SeqlockReader.ANY_LIMIT, Long.MIN_VALUE);
            page.set(JAVA_LONG, r + SeqlockReader.VALID_CYCLES, -1L);
            page.set(JAVA_LONG, r + SeqlockReader.BASE, base);
            page.set(JAVA_LONG, r + SeqlockReader.OFFSET, offset);
            page.set(JAVA_LONG, r + SeqlockReader.LEAP_THRESHOLD, Long.MAX_VALUE);
            page.set(JAVA_LONG, r + SeqlockReader.LEAP_STEP, 0);
            page.set(JAVA_LONG, r + SeqlockReader.MULT, mult);
            page.set(JAVA_LONG, r + SeqlockReader.XTIME, 0);
            long pa = page.address();
            long ra = pa + r;
            for (int path = 0; path < 2; path++) {
                if (path == 1) {
                    page.set(JAVA_LONG, r + SeqlockReader.ANY_LIMIT, 0); // every delta takes the slow path
                }
                long c1 = counter.read();
                long[] v = readBoth(pa, ra, SeqlockReader.ANY);
                long c2 = counter.read();
                assertThat(v[0]).as("path %d", path).isBetween(base + offset + (((c1 - cycleLast) * mult) >>> shift),
                        base + offset + (((c2 - cycleLast) * mult) >>> shift));
                assertThat(v[1]).as("path %d", path).isBetween(v[0], v[2]);
            }

            page.set(JAVA_LONG, r + SeqlockReader.FRESH_LIMIT, 0);
            page.set(JAVA_LONG, r + SeqlockReader.VALID_CYCLES, 1000); // far older than 1000 cycles: stale
            assertThat(readBoth(pa, ra, SeqlockReader.FRESH)).containsOnly(SeqlockReader.STALE);
        }
    }
}
