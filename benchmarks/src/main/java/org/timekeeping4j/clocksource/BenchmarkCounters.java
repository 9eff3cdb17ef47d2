package org.timekeeping4j.clocksource;

import java.lang.invoke.MethodHandle;

/**
 * Benchmark support, not API: the counter stubs' handles and counters of every flavour, which are
 * package-private in core. This class lives in the benchmarks jar under core's package, which works because
 * the benchmarks jar runs on the class path (one unnamed module, so the split package is allowed); it cannot
 * be used where core runs as the named module org.timekeeping4j.
 *
 * <p>The handles are {@code static final} here as in {@link Stubs}' holders, so the JIT treats them as
 * constants and inlines the downcall exactly as it does inside core: a benchmark's
 * {@code (long) RDTSC.invokeExact()} is the bare stub call a {@link HardwareCounter#read()} builds on.
 */
public final class BenchmarkCounters {

    /** rdtsc (unordered). */
    public static final MethodHandle RDTSC = Stubs.Rdtsc.HANDLE;
    /** lfence;rdtsc (ordered where the CPU has LFENCE_RDTSC). */
    public static final MethodHandle LFENCE_RDTSC = Stubs.LfenceRdtsc.HANDLE;
    /** rdtscp without the TSC_AUX store: the stub behind {@code HardwareCounter.Rdtscp.read()}. */
    public static final MethodHandle RDTSCP_NOAUX = Stubs.RdtscpNoAux.HANDLE;

    private BenchmarkCounters() {}

    /**
     * A counter of {@code flavour} at the selection's frequency, whether or not the selection chose it.
     *
     * @throws IllegalStateException if its stub did not map on this machine, saying why
     */
    public static HardwareCounter counter(CounterFlavour flavour) {
        CounterSelection s = CounterSelector.selected();
        if (!s.isHardware()) {
            throw new IllegalStateException("no hardware counter on this machine: " + s.rejected());
        }
        return HardwareCounter.create(flavour, s.frequency().hz());
    }
}
