package org.timekeeping4j.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.simulation.counter.CounterSelector;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;

/**
 * {@link ClocksourceAdvice} for this machine, with the costs measured here: a clock read (the vDSO's
 * clock_gettime, a system call on the slow clocksources) against the CPU counter's read. Measures only where the
 * clocksource's name says reads may be system calls (about 0.1 s natively, a few
 * seconds under emulation); elsewhere it costs two sysfs reads.
 *
 * @param advice      the advice
 * @param readNs      a clock read (KernelClocks.nanos(MONOTONIC)), ns
 * @param counterNs   the counter read, ns, or NaN where there is none
 * @param counterRead the counter read's instructions, or null
 */
record ClocksourceCost(ClocksourceAdvice advice, double readNs, double counterNs, String counterRead) {

    /** Each timed batch runs at least this long: far above System.nanoTime's own cost, even as a system call. */
    private static final long BATCH_NANOS = 2_000_000L;

    /** Keeps the JIT from dropping the timed reads. */
    private static volatile long sink;

    /** This machine's advice with its measured costs, or empty where its reads pay no system call. */
    static Optional<ClocksourceCost> here() {
        return of(KernelInfo.currentClocksource(), KernelInfo.availableClocksources(), LinuxTime.uname().machine());
    }

    /**
     * The advice for a kernel on {@code current} offering {@code available}, with this machine's costs measured
     * (tests name a slow clocksource to run the measurement on any machine).
     */
    static Optional<ClocksourceCost> of(String current, List<String> available, String machine) {
        if (!ClocksourceAdvice.NO_VDSO_READ.contains(current) && !ClocksourceAdvice.PVCLOCK.contains(current)) {
            return Optional.empty(); // nothing to measure: the vDSO reads the counter, or tk4j cannot tell
        }
        double read = nsPerCall(() -> KernelClocks.nanos(ClockId.MONOTONIC));
        // kvm-clock and xen: exact mode serving says the vDSO reads their page; else the cost says it.
        boolean fallsBack = ClocksourceAdvice.PVCLOCK.contains(current) && !Clocks.diagnostics().vdsoData().serves()
                && costsASystemCall(read, nsPerCall(() -> KernelClocks.syscallNanos(ClockId.MONOTONIC)));
        Optional<ClocksourceAdvice> advice = ClocksourceAdvice.of(current, available, machine, fallsBack);
        if (advice.isEmpty()) {
            return Optional.empty();
        }
        Optional<Entry<String, LongSupplier>> counter = CounterSelector.rawCounterRead();
        double counterNs = counter.map(c -> nsPerCall(c.getValue())).orElse(Double.NaN);
        return Optional.of(new ClocksourceCost(advice.get(), read, counterNs, counter.map(Entry::getKey).orElse(null)));
    }

    /**
     * Whether a vDSO read that cost {@code vdsoNs} is in fact the system call that cost {@code syscallNs}: a read
     * in user space costs a fraction of one (about 20-40 ns against 100 ns and more), a fallback as much.
     */
    static boolean costsASystemCall(double vdsoNs, double syscallNs) {
        return vdsoNs >= 0.6 * syscallNs;
    }

    /** The advice's lines with the figures. */
    List<String> lines() {
        return advice.lines(readNs, counterNs, counterRead);
    }

    /** For --json. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("clocksource", advice.clocksource());
        m.put("systemCallEveryRead", true);
        m.put("readNs", Math.round(readNs * 10) / 10.0);
        if (counterRead != null) {
            m.put("counterRead", counterRead);
            m.put("counterNs", Math.round(counterNs * 10) / 10.0);
        }
        if (advice.faster() != null) {
            m.put("faster", advice.faster());
        }
        return m;
    }

    /** Calls before timing: enough for the JIT to compile the loop and inline the read (C2 by about 10^4). */
    private static final long WARM_CALLS = 100_000;
    /** At most this long warming up, where calls are slow (a system call under emulation: tens of us each). */
    private static final long WARM_NANOS = 2_000_000_000L;

    /**
     * ns per call of {@code read}: warmed up first ({@link #WARM_CALLS}, or {@link #WARM_NANOS} where calls are
     * slow: an interpreted downcall under QEMU's emulation cost 35-105 us, a figure of the JIT and not of the
     * read), then the cheapest of five timed batches, each doubling its calls until it runs {@link #BATCH_NANOS}.
     */
    static double nsPerCall(LongSupplier read) {
        long start = System.nanoTime();
        for (long calls = 0; calls < WARM_CALLS && System.nanoTime() - start < WARM_NANOS; calls += 1_000) {
            batch(read, 1_000);
        }
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            for (long n = 16; ; n *= 2) {
                long elapsed = batch(read, n);
                if (elapsed >= BATCH_NANOS || n >= 1L << 24) {
                    best = Math.min(best, elapsed / (double) n);
                    break;
                }
            }
        }
        return best;
    }

    /** ns that {@code n} calls of {@code read} took. */
    private static long batch(LongSupplier read, long n) {
        long s = 0;
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            s ^= read.getAsLong();
        }
        long elapsed = System.nanoTime() - t0;
        sink = s;
        return elapsed;
    }
}
