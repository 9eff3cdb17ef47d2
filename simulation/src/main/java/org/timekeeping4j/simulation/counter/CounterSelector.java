package org.timekeeping4j.simulation.counter;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.config.CounterMode;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.Stubs;

/**
 * Chooses the counter that timekeeping4j reads: a hardware counter where it is provably linear with the
 * kernel's clocks, the kernel itself everywhere else.
 *
 * <h2>When the hardware counter may be used</h2>
 * Each architecture's facts below are its {@link Arch} descriptor's.
 * <ol>
 *   <li>The architecture has a descriptor (x86_64, aarch64). Elsewhere (riscv64, s390x, loongarch64, ...) the
 *       kernel's clocks serve, and the rejection names the architecture.</li>
 *   <li>The kernel's current clocksource is the same counter ({@code tsc} on x86, {@code arch_sys_counter}
 *       on arm64). Otherwise (kvm-clock, hpet, acpi_pm, a TSC the kernel marked unstable) the kernel's
 *       clocks follow something else and reading the TSC would drift from them.</li>
 *   <li>x86: the CPU advertises an invariant TSC ({@code constant_tsc} and {@code nonstop_tsc}): the rate
 *       is fixed across P-states and the counter runs through C-states.</li>
 *   <li>arm64: no arch-timer erratum for which the kernel keeps its vDSO off the counter (see
 *       {@link Arm64Facts}). Where the CPU has FEAT_ECV (HWCAP2_ECV) the self-synchronised
 *       {@code mrs cntvctss_el0} is tried first, then {@code isb; mrs cntvct_el0}.</li>
 *   <li>The stub maps: executable memory is allowed (W^X mapping, see ExecutableMemory).</li>
 *   <li>The self-test passes: the counter never goes backwards over a burst of reads, and its frequency
 *       agrees with CLOCK_MONOTONIC_RAW within {@link #SELF_TEST_PPM} ppm.</li>
 * </ol>
 * Otherwise the selection falls back to the kernel's MONOTONIC_RAW as a counter ({@code KernelCounter}) and
 * records every rejection's reason.
 *
 * <h2>Frequency</h2>
 * From what the platform states without privilege (arm64 cntfrq_el0; x86 CPUID leaf 0x15 or the
 * hypervisor leaf 0x40000010), cross-checked by a short calibration; else calibrated against
 * CLOCK_MONOTONIC_RAW with the narrowest of many brackets (see Calibrator).
 */
public final class CounterSelector {

    /** The system property that chooses the counter mode. */
    public static final String PROPERTY = Configuration.COUNTER;

    /** The agreement the self-test demands between the counter's frequency and CLOCK_MONOTONIC_RAW. */
    public static final double SELF_TEST_PPM = 100;

    /** Reads in the monotonicity burst of the self-test. */
    static final int SELF_TEST_READS = 20_000;

    /** What the selector needs to know of the machine: the real one, or a test's. */
    interface Environment {
        /** The kernel's machine name (Platform.ARCH: "x86_64", "riscv64", ...), or null on a refused platform. */
        String machine();

        String currentClocksource();

        Set<String> cpuFlags();

        /** AT_HWCAP2 of the auxiliary vector (arm64: HWCAP2_ECV), 0 where absent. */
        long hwcap2();

        /** The arch-timer errata for which the kernel keeps its vDSO off the counter (arm64); else empty. */
        List<String> counterErrata();

        /** A reader for the flavour, or empty with the reason in {@code why}. */
        Optional<LongSupplier> counter(CounterRead flavour, List<String> why);

        /** The frequency the platform states, if any. */
        Optional<Frequency> statedFrequency();

        /** CLOCK_MONOTONIC_RAW in ns. */
        long kernelRawNanos();

        /** Creates the clocksource for a flavour that passed. */
        Clocksource create(CounterRead flavour, double hz);
    }

    private static volatile CounterSelection selected;

    private CounterSelector() {}

    /**
     * Null, or the configuration error of the two properties that steer the selection: {@value #PROPERTY}
     * naming no counter mode, or {@code timekeeping4j.execmem} naming neither allow nor deny. The message names
     * the property, the value and the valid values.
     *
     * @return the error, or null when both properties are valid
     */
    public static IllegalArgumentException configError() {
        Configuration c = Configuration.PROCESS;
        String e = c.counterError() != null ? c.counterError() : c.execmemError();
        return e == null ? null : new IllegalArgumentException(e);
    }

    /**
     * The selection for this JVM, made on first call from the {@value #PROPERTY} property (default auto).
     *
     * @return the selection, the same on every call
     * @throws IllegalArgumentException if the property names no mode, or {@code timekeeping4j.execmem} is
     *                                  neither allow nor deny ({@link #configError()})
     */
    public static CounterSelection selected() {
        CounterSelection s = selected;
        if (s == null) {
            synchronized (CounterSelector.class) {
                s = selected;
                if (s == null) {
                    IllegalArgumentException bad = configError();
                    if (bad != null) {
                        throw bad;
                    }
                    s = select(Configuration.PROCESS.counter(), RealEnvironment.INSTANCE);
                    selected = s;
                }
            }
        }
        return s;
    }

    /**
     * This machine's cheapest counter read (x86 rdtsc, arm64 mrs cntvct_el0) as it is, whatever the selection
     * decided: neither calibrated nor checked against the kernel's clocks, so its values say nothing of the time.
     * For diagnostics that compare what a clock read costs with what the counter costs (tk4j: a kernel clocksource
     * whose every read is a system call). Empty on an architecture without a descriptor or where the read's stub
     * cannot run.
     *
     * @return the read and its instructions, e.g. "rdtsc", or empty
     */
    public static Optional<java.util.Map.Entry<String, LongSupplier>> rawCounterRead() {
        Arch arch = Arch.HERE;
        if (arch == null) {
            return Optional.empty();
        }
        CounterRead flavour = arch.reads(false, Set.of(), 0).get(0);
        return RealEnvironment.INSTANCE.counter(flavour, new ArrayList<>())
                .map(read -> java.util.Map.entry(flavour.instructions(), read));
    }

    static CounterSelection select(CounterMode mode, Environment env) {
        List<Rejection> rejected = new ArrayList<>();
        if (mode == CounterMode.KERNEL) {
            // A choice, not a rejection of the hardware: the reason says who chose (tk4j info prints it as such).
            rejected.add(new Rejection("hardware counter", "not tried: " + PROPERTY + "=kernel chose the kernel's "
                    + "clocks"));
            return kernel(mode, rejected);
        }
        Arch arch = Arch.of(env.machine());
        if (arch == null) {
            rejected.add(new Rejection("hardware counter", Arch.noDescriptor(env.machine())));
            return kernel(mode, rejected);
        }
        String expected = arch.kernelClocksource();
        String current = env.currentClocksource();
        if (!expected.equals(current)) {
            rejected.add(new Rejection("hardware counter", "the kernel's clocksource is "
                    + (current.isEmpty() ? "unknown (sysfs unreadable)" : current) + ", not " + expected
                    + ": the kernel's clocks do not follow the " + expected + " counter"));
            return kernel(mode, rejected);
        }
        String unfit = arch.unfit(env.cpuFlags(), env.counterErrata());
        if (unfit != null) {
            rejected.add(new Rejection("hardware counter", unfit));
            return kernel(mode, rejected);
        }
        List<CounterRead> candidates = arch.reads(mode != CounterMode.UNORDERED, env.cpuFlags(), env.hwcap2());
        Frequency frequency = null;
        Clocksource chosen = null;
        for (CounterRead flavour : candidates) {
            List<String> why = new ArrayList<>();
            Optional<LongSupplier> reader = env.counter(flavour, why);
            if (reader.isEmpty()) {
                rejected.add(new Rejection(flavour.instructions(), String.join("; ", why)));
                continue;
            }
            String failure = monotonicBurst(reader.get());
            if (failure != null) {
                rejected.add(new Rejection(flavour.instructions(), failure));
                continue;
            }
            if (frequency == null) {
                frequency = frequency(reader.get(), env, rejected);
            }
            Frequency check = Calibrator.calibrate(reader.get(), env::kernelRawNanos, 20_000_000L, 500);
            double ppm = Math.abs(frequency.ppmFrom(check.hz()));
            if (ppm > SELF_TEST_PPM + check.uncertaintyPpb() / 1000) {
                rejected.add(new Rejection(flavour.instructions(), String.format(
                        "self-test: frequency %.6f MHz disagrees with CLOCK_MONOTONIC_RAW (%.6f MHz) by %.1f ppm",
                        frequency.hz() / 1e6, check.hz() / 1e6, ppm)));
                continue;
            }
            chosen = env.create(flavour, frequency.hz());
            break;
        }
        if (chosen == null) {
            return kernel(mode, rejected);
        }
        Clocksource ticks = chosen;
        if (chosen.isOrdered()) {
            CounterRead cheap = arch.reads(false, env.cpuFlags(), env.hwcap2()).getFirst();
            Optional<LongSupplier> r = env.counter(cheap, new ArrayList<>());
            if (r.isPresent() && monotonicBurst(r.get()) == null) {
                ticks = env.create(cheap, frequency.hz());
            }
        }
        return new CounterSelection(mode, chosen, ticks, frequency, List.copyOf(rejected));
    }

    /** Null if the counter never went backwards over the burst, else what happened. */
    static String monotonicBurst(LongSupplier counter) {
        long last = counter.getAsLong();
        for (int i = 0; i < SELF_TEST_READS; i++) {
            long now = counter.getAsLong();
            if (now < last) {
                return "self-test: the counter went backwards by " + (last - now) + " cycles within one thread";
            }
            last = now;
        }
        return null;
    }

    /**
     * The counter's frequency: the stated one where a calibration against CLOCK_MONOTONIC_RAW agrees with it, else
     * the calibration. One calibration that disagrees does not yet call the stated frequency wrong: a stall inside
     * its baseline (a preemption between the two brackets' reads, a translated read under an emulator) skews it by
     * the stall over the baseline, so a second one, over twice the baseline, must disagree too. A real misstatement
     * disagrees in both, and costs the selection that second calibration.
     */
    private static Frequency frequency(LongSupplier counter, Environment env, List<Rejection> rejected) {
        Optional<Frequency> stated = env.statedFrequency();
        Frequency calibrated = Calibrator.calibrate(counter, env::kernelRawNanos, 100_000_000L, 10_000);
        if (stated.isEmpty() || agrees(stated.get(), calibrated)) {
            return stated.orElse(calibrated);
        }
        Frequency again = Calibrator.calibrate(counter, env::kernelRawNanos, 200_000_000L, 10_000);
        if (agrees(stated.get(), again)) {
            return stated.get();
        }
        rejected.add(new Rejection(stated.get().source() + " frequency", String.format(
                "states %.6f MHz but CLOCK_MONOTONIC_RAW measures %.6f MHz (%.1f ppm apart; %.1f ppm in a first"
                        + " calibration)", stated.get().hz() / 1e6, again.hz() / 1e6,
                Math.abs(stated.get().ppmFrom(again.hz())), Math.abs(stated.get().ppmFrom(calibrated.hz())))));
        return again;
    }

    /** Whether a calibration agrees with a stated frequency: within the self-test's limit and its own error. */
    private static boolean agrees(Frequency stated, Frequency calibrated) {
        return Math.abs(stated.ppmFrom(calibrated.hz())) <= SELF_TEST_PPM + calibrated.uncertaintyPpb() / 1000;
    }

    private static CounterSelection kernel(CounterMode mode, List<Rejection> rejected) {
        KernelCounter k = new KernelCounter();
        return new CounterSelection(mode, k, k, new Frequency(1e9, 0, "the kernel's nanoseconds"),
                List.copyOf(rejected));
    }

    /** This machine. */
    static final class RealEnvironment implements Environment {
        static final RealEnvironment INSTANCE = new RealEnvironment();

        @Override
        public String machine() {
            return Platform.ARCH;
        }

        @Override
        public String currentClocksource() {
            return KernelInfo.currentClocksource();
        }

        @Override
        public Set<String> cpuFlags() {
            return KernelInfo.cpuFlags();
        }

        @Override
        public long hwcap2() {
            return CounterFacts.hwcap2();
        }

        @Override
        public List<String> counterErrata() {
            return Arch.HERE == null ? List.of() : CounterFacts.counterErrata(Arch.HERE);
        }

        @Override
        public Optional<LongSupplier> counter(CounterRead flavour, List<String> why) {
            Stubs.Mapped m = HardwareCounter.stub(flavour);
            if (!m.ok()) {
                why.add(m.failure());
                return Optional.empty();
            }
            // A counter with a placeholder frequency: calibration only needs its raw reads, and these go
            // through the static handles that the JIT inlines, so brackets are as narrow as real reads.
            return Optional.of(HardwareCounter.create(flavour, 1e9)::read);
        }

        @Override
        public Optional<Frequency> statedFrequency() {
            return Arch.HERE == null ? Optional.empty() : CounterFacts.statedFrequency(Arch.HERE);
        }

        @Override
        public long kernelRawNanos() {
            return ClockGettimeStub.clockGettimeNanos(ClockId.MONOTONIC_RAW.id());
        }

        @Override
        public Clocksource create(CounterRead flavour, double hz) {
            return HardwareCounter.create(flavour, hz);
        }
    }
}
