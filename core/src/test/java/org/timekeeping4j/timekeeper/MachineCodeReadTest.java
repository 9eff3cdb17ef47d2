package org.timekeeping4j.timekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.timekeeping4j.machine.SeqlockStub.ANY;
import static org.timekeeping4j.machine.SeqlockStub.FRESH;
import static org.timekeeping4j.machine.SeqlockStub.HEADER_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.RECORD_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.STALE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.adjust.NtpAdjuster;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.clocksource.SeqlockReader;
import org.timekeeping4j.machine.SeqlockPage;
import org.timekeeping4j.machine.SeqlockStub;

/**
 * The machine-code read (SeqlockStub over a SeqlockPage PagePublisher filled) against a BigInteger reference of the
 * Java reader's arithmetic, on the real counter: each read is bracketed by two ordered counter reads c1
 * and c2, and since the reference is non-decreasing in the counter (for a non-negative leap step), the stub's
 * value must lie in [ref(c1), ref(c2)]. States are random (seeded), and chosen to drive every branch:
 * the fast path, the slow path (limits 0, a counter slower than 1 GHz, counter values before cycle_last, a
 * leap second inside the window), staleness, and a writer inside its window. Runs where the selected counter
 * has a seqlock stub (x86_64 with an ordered TSC read); elsewhere the timekeeper reads in Java and these
 * tests are skipped, saying why.
 */
class MachineCodeReadTest {

    private static final long[] OFFSETS_BY_RECORD = new long[5];
    private static Clocksource counter;
    private static SeqlockReader reader;

    @BeforeAll
    static void selectCounter() {
        counter = CounterSelector.selected().clocksource();
        reader = counter.seqlockReader();
    }

    /** Each test says why it does not apply, rather than the class running none (an aborted @BeforeAll). */
    @BeforeEach
    void needsTheSeqlockStub() {
        assumeTrue(reader != null, "the timekeeper's seqlock stub is x86_64 code around an ordered TSC read; the "
                + "selected counter here is read by " + CounterSelector.selected().readFlavour() + " (" + org.timekeeping4j.linux.Platform.ARCH
                + "; the arm64 page reader is Arm64VdsoCodeTest's)");
    }

    /** The Java reader's value of record {@code p} of {@code st} at counter value {@code c}, on BigInteger. */
    private static long reference(TimekeeperState st, int p, int shift, long c) {
        TkReadBase line = p == 2 ? st.raw : st.mono;
        long delta = c - line.cycleLast;
        if (delta < 0) {
            delta = 0; // before cycle_last: clamped
        }
        long ns = BigInteger.valueOf(delta).multiply(BigInteger.valueOf(line.mult))
                .add(BigInteger.valueOf(line.xtimeNsec)).shiftRight(shift).longValueExact();
        long value = line.base + ns;
        return switch (p) {
            case 0 -> value + st.offsReal + (value >= st.leapMono ? st.leapStepNs : 0);
            case 3 -> value + st.offsBoot;
            case 4 -> value + st.offsTai;
            default -> value;
        };
    }

    private static TimekeeperState randomState(SplittableRandom rnd, int shift, long now) {
        TimekeeperState st = new TimekeeperState(-1L, shift);
        for (TkReadBase line : new TkReadBase[] {st.mono, st.raw}) {
            // 0.3 to 0.99 ns per cycle: counters of 1 to 3.3 GHz, the TSCs this code serves.
            line.mult = (long) ((0.3 + 0.69 * rnd.nextDouble()) * (1L << shift));
            line.xtimeNsec = rnd.nextLong(1L << shift);
            line.base = rnd.nextLong(-(1L << 60), 1L << 60);
            line.cycleLast = now - rnd.nextLong(1L << 36); // up to ~30 s ago at 2.4 GHz: both paths
        }
        st.raw.cycleLast = st.mono.cycleLast;
        st.offsReal = rnd.nextLong(-(1L << 50), 1L << 50);
        st.offsBoot = rnd.nextLong(1L << 50);
        st.offsTai = st.offsReal + 37_000_000_000L;
        st.leapMono = Long.MAX_VALUE;
        st.maxCycles = -1L;
        st.validCycles = -1L;
        return st;
    }

    private static long read(SeqlockPage page, int p, long limit) {
        return SeqlockStub.readPreferred(page.address(), page.address() + HEADER_BYTES + p * RECORD_BYTES, limit);
    }

    /** Reads record p between two counter reads and checks the bracket; returns the value. */
    private static long checkBracketed(SeqlockPage page, TimekeeperState st, int shift, int p, long limit) {
        long c1 = counter.read();
        long v = read(page, p, limit);
        long c2 = counter.read();
        long lo = reference(st, p, shift, c1);
        long hi = reference(st, p, shift, c2);
        assertThat(v).as("record %d, counter in [%d, %d], state base %d mult %d", p, c1, c2, st.mono.base,
                st.mono.mult).isBetween(lo, hi);
        return v;
    }

    @Test
    void randomStatesShouldReadAsTheReferenceOnBothPaths() {
        SplittableRandom rnd = new SplittableRandom(20261130);
        int shift = 24;
        SeqlockPage page = SeqlockPage.allocate();
        for (int i = 0; i < 2000; i++) {
            TimekeeperState st = randomState(rnd, shift, counter.read());
            PagePublisher.publish(page, st, shift);
            for (int p = 0; p < 5; p++) {
                checkBracketed(page, st, shift, p, ANY);
                checkBracketed(page, st, shift, p, FRESH);
            }
        }
    }

    /**
     * The bracket of a real-speed line is ~30 ns wide, too wide to see a carry lost between k's words. With a
     * mult of a few units the line moves by one ns per millions of cycles: the bracket's two ends almost
     * always agree, so the value is checked to the ns. Each state's cycle_last is in epoch E = now's high
     * half - j for j = 0, 1 in turn (so inside every record's window), and the slow path's fields are
     * spoiled after each publication: a right value proves the fast path served it, with the constant k_j
     * of the counter's high half, E and E + 1 half of the time each.
     *
     * <p>A state's five reads count only when they all ended in the epoch the state was made for: a thread
     * descheduled across the epoch's end (2^32 cycles, under two seconds; a busy machine can hold a reader off
     * for a tenth of a second) would read at E + 2, outside the window, where the spoiled slow path serves.
     * Such a state is made again (at most {@value #SLOW_LINE_REDOS} times in all), so the verdict is the same
     * on a busy machine: 25,000 reads checked, half at each epoch.
     */
    @Test
    void slowLinesShouldReadExactlyOnTheFastPath() {
        SplittableRandom rnd = new SplittableRandom(29);
        int shift = 24;
        SeqlockPage page = SeqlockPage.allocate();
        int exact = 0;
        int[] byEpoch = new int[2];
        int redone = 0;
        long[] c1 = new long[5];
        long[] c2 = new long[5];
        long[] v = new long[5];
        for (int i = 0; i < 5000; i++) {
            long now = counter.read();
            if ((now & 0xFFFF_FFFFL) > 0xF000_0000L) { // within 0.1 s of the next epoch: let it pass
                i--;
                continue;
            }
            TimekeeperState st = randomState(rnd, shift, now);
            // cycle_last in epoch E = now's - j, before now: the reads below see the high half at E + j.
            int j = i % 2;
            long low = rnd.nextLong(j == 0 ? (now & 0xFFFF_FFFFL) + 1 : 1L << 32);
            st.mono.cycleLast = (((now >>> 32) - j) << 32) + low;
            st.raw.cycleLast = st.mono.cycleLast;
            st.mono.mult = 1 + rnd.nextLong(256);
            st.raw.mult = 1 + rnd.nextLong(256);
            PagePublisher.publish(page, st, shift);
            spoilSlowPath(page);
            for (int p = 0; p < 5; p++) {
                c1[p] = counter.read();
                v[p] = read(page, p, ANY);
                c2[p] = counter.read();
            }
            if (c2[4] >>> 32 != now >>> 32) { // the epoch ended while this thread was held off: make a new state
                assertThat(++redone).as("states made again after their epoch ended under them")
                        .isLessThanOrEqualTo(SLOW_LINE_REDOS);
                i--;
                continue;
            }
            for (int p = 0; p < 5; p++) {
                long lo = reference(st, p, shift, c1[p]);
                long hi = reference(st, p, shift, c2[p]);
                int epoch = (int) ((c1[p] >>> 32) - (st.mono.cycleLast >>> 32));
                assertThat(v[p]).as("record %d, epoch E + %d", p, epoch).isBetween(lo, hi);
                exact += lo == hi ? 1 : 0;
                byEpoch[epoch]++;
            }
        }
        assertThat(exact).as("reads whose bracket pinned the value to the ns").isGreaterThan(20_000);
        assertThat(byEpoch).as("reads at E, E + 1").containsExactly(12_500, 12_500);
    }

    /** How many states slowLinesShouldReadExactlyOnTheFastPath may make again: far more than load ever took. */
    private static final int SLOW_LINE_REDOS = 500;

    /** Writes nonsense into every record's slow-path fields, which the fast path does not read. */
    private static void spoilSlowPath(SeqlockPage page) {
        MemorySegment m = MemorySegment.ofAddress(page.address()).reinterpret(HEADER_BYTES + 5 * RECORD_BYTES);
        for (int p = 0; p < 5; p++) {
            long r = HEADER_BYTES + p * RECORD_BYTES;
            m.set(ValueLayout.JAVA_LONG, r + SeqlockStub.BASE, 0x5555_5555_5555L);
            m.set(ValueLayout.JAVA_LONG, r + SeqlockStub.OFFSET, -0x1234_5678_9abcL);
            m.set(ValueLayout.JAVA_LONG, r + SeqlockStub.MULT, 0);
            m.set(ValueLayout.JAVA_LONG, r + SeqlockStub.XTIME, 0);
        }
    }

    @Test
    void aCounterValueBeforeCycleLastShouldReadAsCycleLast() {
        SplittableRandom rnd = new SplittableRandom(7);
        int shift = 26;
        SeqlockPage page = SeqlockPage.allocate();
        TimekeeperState st = randomState(rnd, shift, counter.read());
        st.mono.cycleLast = counter.read() + 1_000_000_000_000L; // far ahead: every read is "before" it
        st.raw.cycleLast = st.mono.cycleLast;
        PagePublisher.publish(page, st, shift);
        for (int p = 0; p < 5; p++) {
            long atCycleLast = reference(st, p, shift, st.mono.cycleLast);
            assertThat(read(page, p, ANY)).isEqualTo(atCycleLast);
            assertThat(read(page, p, FRESH)).isEqualTo(atCycleLast);
        }
    }

    @Test
    void aCounterSlowerThanOneGigahertzShouldTakeTheExactSlowPath() {
        SplittableRandom rnd = new SplittableRandom(11);
        int shift = 20;
        SeqlockPage page = SeqlockPage.allocate();
        for (int i = 0; i < 200; i++) {
            TimekeeperState st = randomState(rnd, shift, counter.read());
            st.mono.mult = (1L << shift) + rnd.nextLong(1L << (shift + 4)); // > 1 ns per cycle: mult' > 2^64
            st.raw.mult = st.mono.mult;
            st.mono.cycleLast = counter.read() - rnd.nextLong(1L << 30);
            st.raw.cycleLast = st.mono.cycleLast;
            assertThat(PagePublisher.anyLimit(st.mono, Long.MAX_VALUE, shift)).isZero();
            PagePublisher.publish(page, st, shift);
            for (int p = 0; p < 5; p++) {
                checkBracketed(page, st, shift, p, ANY);
            }
        }
    }

    @Test
    void aFreshReadOfAStaleRecordShouldSayStaleAndAnyReadShouldExtrapolate() {
        SplittableRandom rnd = new SplittableRandom(3);
        int shift = 24;
        SeqlockPage page = SeqlockPage.allocate();
        TimekeeperState st = randomState(rnd, shift, counter.read());
        st.mono.cycleLast = counter.read() - 100_000_000L;
        st.raw.cycleLast = st.mono.cycleLast;
        st.validCycles = 50_000_000L;
        PagePublisher.publish(page, st, shift);
        for (int p = 0; p < 5; p++) {
            assertThat(read(page, p, FRESH)).isEqualTo(STALE);
            checkBracketed(page, st, shift, p, ANY);
        }
        st.validCycles = 1L << 40; // valid for minutes: fresh reads are served
        PagePublisher.publish(page, st, shift);
        for (int p = 0; p < 5; p++) {
            checkBracketed(page, st, shift, p, FRESH);
        }
    }

    @Test
    void aLeapSecondInsideTheWindowShouldApplyFromItsThresholdOn() {
        SplittableRandom rnd = new SplittableRandom(5);
        int shift = 24;
        // Every read is checked against the reference (checkBracketed); the attempt only has to see reads on both
        // sides of the leap. A descheduling longer than the 20 ms lead (a loaded machine) can swallow one side:
        // then the attempt is taken again with a new point, up to five times.
        int before = 0;
        int after = 0;
        for (int attempt = 0; attempt < 5 && (before == 0 || after == 0); attempt++) {
            SeqlockPage page = SeqlockPage.allocate();
            TimekeeperState st = randomState(rnd, shift, counter.read());
            long now = counter.read();
            st.mono.cycleLast = now;
            st.raw.cycleLast = now;
            long pointCycles = now + (long) (counter.frequencyHz() / 50); // 20 ms ahead: room for a pause
            st.leapMono = reference(st, 1, shift, pointCycles);
            st.leapStepNs = 1_000_000_000L; // a deleted second: REALTIME jumps ahead, the reference stays monotonic
            PagePublisher.publish(page, st, shift);
            assertThat(PagePublisher.anyLimit(st.mono, st.leapMono, shift))
                    .isBetween(pointCycles - now - 4, pointCycles - now); // ns per cycle < 1: a few deltas share a ns
            before = 0;
            after = 0;
            long end = pointCycles + (long) (counter.frequencyHz() / 50);
            while (counter.read() < end) {
                long v = checkBracketed(page, st, shift, 0, ANY);
                if (v >= st.leapMono + st.offsReal + st.leapStepNs) {
                    after++;
                } else {
                    before++;
                }
            }
        }
        assertThat(before).as("reads before the leap").isPositive();
        assertThat(after).as("reads after the leap").isPositive();
    }

    @Test
    void leapDeltaShouldBeTheFirstDeltaAtOrPastTheThreshold() {
        SplittableRandom rnd = new SplittableRandom(13);
        int shift = 24;
        for (int i = 0; i < 10_000; i++) {
            TkReadBase line = new TkReadBase(-1L, shift);
            line.mult = (long) ((0.3 + 0.69 * rnd.nextDouble()) * (1L << shift));
            line.xtimeNsec = rnd.nextLong(1L << shift);
            line.base = rnd.nextLong(1L << 60);
            long threshold = line.base + 1 + rnd.nextLong(i % 2 == 0 ? 1_000_000L : 86_400_000_000_000L);
            long d = PagePublisher.leapDelta(line, threshold, shift);
            assertThat(lineValue(line, d, shift)).isGreaterThanOrEqualTo(threshold);
            assertThat(lineValue(line, d - 1, shift)).isLessThan(threshold);
        }
        TkReadBase line = new TkReadBase(-1L, shift);
        line.mult = 1L << 23;
        line.base = 100;
        assertThat(PagePublisher.leapDelta(line, Long.MAX_VALUE, shift)).isEqualTo(-1L); // none armed
        assertThat(PagePublisher.leapDelta(line, 100, shift)).isZero(); // already past
        line.mult = 0;
        assertThat(PagePublisher.leapDelta(line, 200, shift)).isEqualTo(-1L); // suspended: never reached
    }

    private static long lineValue(TkReadBase line, long delta, int shift) {
        return line.base + BigInteger.valueOf(delta).multiply(BigInteger.valueOf(line.mult))
                .add(BigInteger.valueOf(line.xtimeNsec)).shiftRight(shift).longValueExact();
    }

    @Test
    void limitsShouldStopBeforeTheCounterWrapsAndHonourValidity() {
        TkReadBase line = new TkReadBase(-1L, 24);
        line.mult = 1L << 23;
        line.cycleLast = -1000L; // 1000 cycles before the 64-bit counter wraps
        assertThat(PagePublisher.anyLimit(line, Long.MAX_VALUE, 24)).isEqualTo(1000L);
        // Otherwise the window ends where the counter's high half would pass E + 1 (E: cycle_last's).
        line.cycleLast = 5;
        assertThat(PagePublisher.anyLimit(line, Long.MAX_VALUE, 24)).isEqualTo((2L << 32) - 5);
        line.cycleLast = (77L << 32) + 0xFFFF_FFFFL; // the last cycle of epoch 77: one epoch and one cycle left
        assertThat(PagePublisher.anyLimit(line, Long.MAX_VALUE, 24)).isEqualTo((1L << 32) + 1);
        line.cycleLast = 0xFFFF_FFFDL << 32; // the last epoch whose window ends before the wrap
        assertThat(PagePublisher.anyLimit(line, Long.MAX_VALUE, 24)).isEqualTo(2L << 32);
        line.cycleLast = (0xFFFF_FFFFL << 32) + 7; // past it, the wrap bounds the window
        assertThat(PagePublisher.anyLimit(line, Long.MAX_VALUE, 24)).isEqualTo((1L << 32) - 7);
        assertThat(PagePublisher.freshLimit(Long.MIN_VALUE, 99)).isEqualTo(100);
        assertThat(PagePublisher.freshLimit(50, 99)).isEqualTo(50);
        assertThat(PagePublisher.freshLimit(Long.MIN_VALUE, -1L)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aReaderShouldWaitWhileTheWriterIsInsideItsWindow() throws Exception {
        SplittableRandom rnd = new SplittableRandom(17);
        int shift = 24;
        SeqlockPage page = SeqlockPage.allocate();
        TimekeeperState st = randomState(rnd, shift, counter.read());
        PagePublisher.publish(page, st, shift);
        page.beginWrite();
        AtomicLong result = new AtomicLong(Long.MIN_VALUE);
        long started = counter.read();
        Thread t = Thread.ofPlatform().start(() -> result.set(read(page, 1, ANY)));
        t.join(100);
        assertThat(t.isAlive()).as("the reader spins while seq is odd").isTrue();
        TimekeeperState next = randomState(rnd, shift, counter.read());
        PagePublisher.publish(page, next, shift);
        t.join(5_000);
        assertThat(t.isAlive()).isFalse();
        // It returned the new state's value at a counter value it read after it started.
        assertThat(result.get()).isGreaterThanOrEqualTo(reference(next, 1, shift, started))
                .isLessThanOrEqualTo(reference(next, 1, shift, counter.read()));
    }

    /**
     * A live timekeeper over the counter: the machine-code read must return what the Java history
     * conversion gives for a counter value inside its bracket, for every clock, while updates with frequency
     * changes, slews and steps are published between reads.
     */
    @Test
    void aLiveTimekeeperShouldReadWhatItsHistoryConverts() {
        NtpAdjuster ntp = new NtpAdjuster();
        Timekeeper tk = Timekeeper.builder(counter).adjustment(ntp).realtimeNanos(1_764_000_000_000_000_000L)
                .monotonicNanos(5_000_000_000L).taiOffsetSeconds(37).build();
        assertThat(tk.readPath()).startsWith("machine code around");
        ClockId[] clocks = {ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW, ClockId.BOOTTIME, ClockId.TAI};
        SplittableRandom rnd = new SplittableRandom(19);
        for (int i = 0; i < 20_000; i++) {
            if (i % 100 == 0) {
                ntp.setFrequencyPpb(rnd.nextLong(-400_000, 400_000));
                if (i % 300 == 0) {
                    ntp.slew(rnd.nextLong(-1_000_000, 1_000_000));
                }
                if (i % 1000 == 0) {
                    tk.step(rnd.nextLong(-1_000_000_000L, 1_000_000_000L));
                }
                tk.update();
            }
            ClockId clock = clocks[i % clocks.length];
            long c1 = counter.read();
            long v = tk.nanos(clock);
            long c2 = counter.read();
            assertThat(v).as("%s", clock).isBetween(tk.convert(c1, clock), tk.convert(c2, clock));
        }
    }

    /**
     * A page mirrored by one timekeeper, then handed to another: reads through it follow whichever mirrors
     * it, exactly as that timekeeper converts; two cannot mirror one page at once; a zero-validity update
     * (how the tracker retires a pair) makes fresh reads through the page stale.
     */
    @Test
    void aMirroredPageShouldReadAsTheTimekeeperBehindIt() {
        SeqlockPage page = SeqlockPage.allocate();
        long rec = page.recordAddress(CounterClock.REALTIME.record());
        assertThat(SeqlockStub.readPreferred(page.address(), rec, FRESH)).as("a new page is stale").isEqualTo(STALE);
        Timekeeper a = Timekeeper.builder(counter).realtimeNanos(1_764_000_000_000_000_000L).build();
        Timekeeper b = Timekeeper.builder(counter).realtimeNanos(1_000_000_000_000_000_000L).build();
        a.mirrorTo(page);
        assertThatThrownBy(() -> b.mirrorTo(page)).isInstanceOf(IllegalStateException.class).hasMessageContaining("another timekeeper");
        for (int i = 0; i < 1000; i++) {
            if (i % 100 == 0) {
                a.update();
            }
            long c1 = counter.read();
            long v = SeqlockStub.readPreferred(page.address(), rec, FRESH);
            long c2 = counter.read();
            assertThat(v).isBetween(a.convert(c1, ClockId.REALTIME), a.convert(c2, ClockId.REALTIME));
        }
        a.stopMirroring();
        a.update(); // no longer mirrored: the page keeps a's last state
        b.mirrorTo(page);
        long c1 = counter.read();
        long v = SeqlockStub.readPreferred(page.address(), rec, FRESH);
        long c2 = counter.read();
        assertThat(v).isBetween(b.convert(c1, ClockId.REALTIME), b.convert(c2, ClockId.REALTIME));

        b.setValidityCycles(0);
        b.update();
        for (CounterClock clock : CounterClock.values()) {
            assertThat(SeqlockStub.readPreferred(page.address(), page.recordAddress(clock.record()), FRESH)).as("%s", clock).isEqualTo(STALE);
            assertThat(b.readFresh(clock.clock())).isEqualTo(Timekeeper.STALE);
        }
    }
}
