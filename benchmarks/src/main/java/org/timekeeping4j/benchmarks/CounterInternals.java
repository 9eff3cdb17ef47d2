package org.timekeeping4j.benchmarks;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.simulation.counter.CounterSelection;
import org.timekeeping4j.simulation.counter.CounterSelector;
import org.timekeeping4j.simulation.counter.HardwareCounter;

/**
 * Benchmark support, not API: the counter stubs' handles and counters of every flavour, which are
 * package-private in core's {@code org.timekeeping4j.clocksource}. Reached by a private lookup, which the JDK
 * grants because the benchmarks jar runs on the class path (core's packages are then in the unnamed module,
 * open to every class there); where core runs as the named module {@code org.timekeeping4j} it would take
 * {@code --add-opens org.timekeeping4j/org.timekeeping4j.clocksource=ALL-UNNAMED}. No class of this jar is
 * planted in a core package (no split package).
 *
 * <p>The handles are {@code static final} here as in core's stub holders, so the JIT treats them as constants
 * and inlines the downcall exactly as it does inside core: a benchmark's {@code (long) RDTSC.invokeExact()} is
 * the bare stub call a {@link HardwareCounter#read()} builds on.
 */
final class CounterInternals {

    private static final String STUBS = "org.timekeeping4j.machine.Stubs$";

    /** rdtsc (unordered). */
    static final MethodHandle RDTSC = stubHandle("Rdtsc");
    /** lfence;rdtsc (ordered where the CPU has LFENCE_RDTSC). */
    static final MethodHandle LFENCE_RDTSC = stubHandle("LfenceRdtsc");
    /** rdtscp without the TSC_AUX store: the stub behind {@code HardwareCounter.Rdtscp.read()}. */
    static final MethodHandle RDTSCP_NOAUX = stubHandle("RdtscpNoAux");

    private static final MethodHandle CREATE = createHandle();

    private CounterInternals() {}

    /**
     * A counter of {@code flavour} at the selection's frequency, whether or not the selection chose it.
     *
     * @throws IllegalStateException if its stub did not map on this machine, saying why
     */
    static HardwareCounter counter(CounterRead flavour) {
        CounterSelection s = CounterSelector.selected();
        if (!s.isHardware()) {
            throw new IllegalStateException("no hardware counter on this machine: " + s.rejected());
        }
        try {
            return (HardwareCounter) CREATE.invokeExact(flavour, s.frequency().hz());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MethodHandle stubHandle(String holder) {
        try {
            Class<?> c = Class.forName(STUBS + holder);
            return (MethodHandle) MethodHandles.privateLookupIn(c, MethodHandles.lookup())
                    .findStaticGetter(c, "HANDLE", MethodHandle.class).invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("cannot reach core's stub " + holder
                    + " (run the benchmarks jar on the class path): " + t, t);
        }
    }

    private static MethodHandle createHandle() {
        try {
            return MethodHandles.privateLookupIn(HardwareCounter.class, MethodHandles.lookup()).findStatic(
                    HardwareCounter.class, "create",
                    MethodType.methodType(HardwareCounter.class, CounterRead.class, double.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach HardwareCounter.create (run the benchmarks jar on the "
                    + "class path): " + e, e);
        }
    }
}
