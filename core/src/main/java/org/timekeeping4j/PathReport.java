package org.timekeeping4j;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.VdsoLayout;

/**
 * What serves the clocks and with which parameters ({@link Clocks#servingPaths()}, {@link Clocks#calibration()},
 * {@link Clocks#kernelData()}): descriptions for people and tools, built on the caller's thread, never on a read.
 */
final class PathReport {

    private PathReport() {}

    static Calibration calibration() {
        return switch (ServingMode.PROCESS) {
            case EXACT -> exactCalibration();
            case KERNEL -> kernelCalibration();
        };
    }

    /** Exact mode: the kernel's own CS_RAW parameters. */
    private static Calibration exactCalibration() {
        KernelVdso.Fields raw = KernelVdso.fields(VdsoLayout.CS_RAW);
        KernelVdso.VdsoNanos at = new KernelVdso.VdsoNanos();
        if (raw == null || !KernelVdso.convert(raw.cycleLast(), CounterClock.MONOTONIC_RAW, at)) {
            return new Calibration(false, 0, 0, 0, 0, 0, 0, 0, "exact mode: the kernel's vDSO data no longer serves "
                    + "the counter (clock_mode changed)");
        }
        long maxCycles = raw.maxCycles() > 0 ? raw.maxCycles() : Long.MAX_VALUE;
        return new Calibration(true, raw.frequencyHz(), raw.mult(), raw.shift(), 0, raw.cycleLast(),
                at.nanos(), (long) Math.min(Long.MAX_VALUE, maxCycles / raw.frequencyHz() * 1e9),
                "the kernel's own CS_RAW mult/shift from its vDSO data (" + KernelVdso.state().layout()
                        .description() + "); exact, updated by the kernel");
    }

    /** Kernel mode: no calibration, and why. */
    private static Calibration kernelCalibration() {
        checkConfiguration();
        return new Calibration(false, 0, 0, 0, 0, 0, 0, 0, kernelReason());
    }

    /** Throws the configuration error every read reports, if there is one. */
    private static void checkConfiguration() {
        if (Configuration.PROCESS.error() != null) {
            throw Configuration.PROCESS.error();
        }
    }

    /** Why the kernel serves: the counter not read by choice, or exact mode's refusal (one line, its own words). */
    private static String kernelReason() {
        return Configuration.PROCESS.kernelChosen()
                ? "the kernel's clocks, as chosen (" + CounterSelector.PROPERTY + "=kernel)"
                : KernelVdso.reason();
    }

    static KernelData kernelData() {
        var st = KernelVdso.state();
        String layout = st.layout() == null ? null : st.layout().description();
        if (ServingMode.PROCESS != ServingMode.EXACT) { // kernel mode: the kernel's data does not serve
            return new KernelData(false, KernelVdso.reason(), layout, "none", 0, 0, 0, 0, 0, st.layout() == null ? "none"
                    : "pvclock: " + KernelVdso.pvclock() + "; hvclock: " + KernelVdso.hvclock());
        }
        KernelVdso.Fields h = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE);
        KernelVdso.Fields r = KernelVdso.fields(VdsoLayout.CS_RAW);
        var ns = KernelVdso.timens();
        return new KernelData(true, null, layout, KernelVdso.counterRead(), h.mult(), h.shift(), r.mult(), r.shift(),
                h.seq(), KernelVdso.vclockNow() + (ns.inNamespace() ? "; in a time namespace: MONOTONIC and"
                        + " MONOTONIC_RAW + " + ns.monotonic() + " ns, BOOTTIME + " + ns.boottime() + " ns" : ""));
    }

    static Map<ClockId, ServingPath> servingPaths() {
        switch (FastPath.stage()) {
            case DISCOVERING:
                return sources(new ServingPath(ClockId.MONOTONIC, ServingPath.Path.KERNEL, "kernel clock_gettime while"
                        + " exact mode is discovered (" + millis(System.nanoTime() - FastPath.since()) + " ms so far):"
                        + " MONOTONIC and REALTIME as the JDK reads them, the others through libc", null));
            case DENIED:
                return denied();
            default:
                break;
        }
        return switch (ServingMode.PROCESS) {
            case EXACT -> exactSource();
            case KERNEL -> kernelSource();
        };
    }

    /** The kernel serves the counter-backed clocks (kernel mode). */
    private static Map<ClockId, ServingPath> kernelSource() {
        checkConfiguration();
        String why = kernelReason();
        return sources(new ServingPath(ClockId.MONOTONIC, ServingPath.Path.KERNEL, "kernel clock_gettime: " + why, null));
    }

    private static Map<ClockId, ServingPath> exactSource() {
        return sources(new ServingPath(ClockId.MONOTONIC, ServingPath.Path.COUNTER, "exact: the kernel's vDSO data ("
                + KernelVdso.state().layout().description() + ") with the vDSO's arithmetic around "
                + KernelVdso.counterRead() + ", equal to clock_gettime; now " + KernelVdso.vclockNow()
                + (KernelVdso.timens().inNamespace() ? "; with the time namespace's offsets" : ""), null));
    }

    /** Native access denied: the JDK's two clocks, and every other clock refused with what to add. */
    private static Map<ClockId, ServingPath> denied() {
        Instant since = since();
        Map<ClockId, ServingPath> m = new EnumMap<>(ClockId.class);
        for (ClockId c : ClockId.values()) {
            m.put(c, c == ClockId.MONOTONIC || c == ClockId.REALTIME
                    ? new ServingPath(c, ServingPath.Path.KERNEL, "the JDK's clock (clock_gettime): "
                            + FastPath.reason(), since)
                    : new ServingPath(c, ServingPath.Path.KERNEL, "unsupported: " + FastPath.reason(), since));
        }
        return m;
    }

    /** When the current stage began, as an instant (REALTIME now less the time since). */
    private static Instant since() {
        long ago = System.nanoTime() - FastPath.since();
        return Instant.now().minusNanos(ago);
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }

    /** Every clock's source: {@code counterBacked}'s path and reason for the counter-backed ones, the kernel else. */
    private static Map<ClockId, ServingPath> sources(ServingPath counterBacked) {
        Map<ClockId, ServingPath> m = new EnumMap<>(ClockId.class);
        Instant since = since();
        for (ClockId c : ClockId.values()) {
            if (Clocks.isCounterBacked(c)) {
                m.put(c, new ServingPath(c, counterBacked.path(), counterBacked.reason(), since));
            } else if (c.isAux() && ServingMode.PROCESS == ServingMode.EXACT && KernelVdso.servesAux(c.id() - ClockId.AUX_BASE)) {
                m.put(c, new ServingPath(c, ServingPath.Path.COUNTER, "exact: the kernel's AUX clock data with the "
                        + "vDSO's arithmetic (do_aux), equal to clock_gettime", since));
            } else if (c == ClockId.REALTIME_COARSE || c == ClockId.MONOTONIC_COARSE) {
                m.put(c, new ServingPath(c, ServingPath.Path.KERNEL,
                        "kernel clock_gettime (vDSO): COARSE means the kernel's value at its last tick", since));
            } else {
                m.put(c, new ServingPath(c, ServingPath.Path.KERNEL, LinuxTime.clockGettimeErrno(c.id()) == 0
                        ? "kernel clock_gettime: no counter-based equivalent"
                        : "unsupported: " + Clocks.whyUnsupported(c).orElse(""), since));
            }
        }
        return m;
    }
}
