package org.timekeeping4j;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.timekeeping4j.Diagnostics.Path;
import org.timekeeping4j.Diagnostics.Serving;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.VdsoLayout;

/**
 * What serves the clocks and with which parameters ({@link Clocks#diagnostics()}): a description for people and
 * tools, built on the caller's thread, never on a read.
 */
final class PathReport {

    private PathReport() {}

    static Diagnostics diagnostics() {
        FastPath.awaitSettled(); // the kernel's data and the ticks' meaning are the discovery's outcome
        FastPath.Stage stage = FastPath.stage();
        Instant since = since();
        String why = FastPath.reason();
        if (stage == FastPath.Stage.DENIED) { // nothing native may be touched
            return new Diagnostics(Diagnostics.Stage.DENIED, why, since, denied(since), false,
                    new Diagnostics.Kernel(false, why, null, "none", "none", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        }
        Map<ClockId, Serving> clocks = switch (stage) {
            case DISCOVERING -> sources(Path.KERNEL, "kernel clock_gettime while exact mode is discovered ("
                    + millis(System.nanoTime() - FastPath.since()) + " ms so far): MONOTONIC and REALTIME as the JDK"
                    + " reads them, the others through libc", since);
            default -> switch (ServingMode.PROCESS) {
                case EXACT -> exactSource(since);
                case KERNEL -> kernelSource(since);
            };
        };
        return new Diagnostics(Diagnostics.Stage.valueOf(stage.name()), why, since, clocks, FastPath.countsCycles(),
                kernel());
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

    /** The kernel's vDSO data: exact mode's parameters now, or, in kernel mode, why not and what it found. */
    private static Diagnostics.Kernel kernel() {
        var st = KernelVdso.state();
        String layout = st.layout() == null ? null : st.layout().description();
        if (ServingMode.PROCESS != ServingMode.EXACT) { // kernel mode: the kernel's data does not serve
            checkConfiguration();
            return new Diagnostics.Kernel(false, kernelReason(), layout, "none", st.layout() == null ? "none"
                    : "pvclock: " + KernelVdso.pvclock() + "; hvclock: " + KernelVdso.hvclock(),
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        KernelVdso.Fields h = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE);
        KernelVdso.Fields r = KernelVdso.fields(VdsoLayout.CS_RAW);
        var ns = KernelVdso.timens();
        String vclock = KernelVdso.vclockNow() + (ns.inNamespace() ? "; in a time namespace: MONOTONIC and"
                + " MONOTONIC_RAW + " + ns.monotonic() + " ns, BOOTTIME + " + ns.boottime() + " ns" : "");
        // The raw line at the kernel's last update: where the counter no longer serves (clock_mode changed), none.
        KernelVdso.VdsoNanos at = new KernelVdso.VdsoNanos();
        boolean converts = KernelVdso.convert(r.cycleLast(), CounterClock.MONOTONIC_RAW, at);
        long maxCycles = r.maxCycles() > 0 ? r.maxCycles() : Long.MAX_VALUE;
        long validFor = converts ? (long) Math.min(Long.MAX_VALUE, maxCycles / r.frequencyHz() * 1e9) : 0;
        return new Diagnostics.Kernel(true, null, layout, KernelVdso.counterRead(), vclock, h.seq(), h.mult(),
                h.shift(), r.mult(), r.shift(), converts ? r.cycleLast() : 0, converts ? at.nanos() : 0, validFor,
                ns.inNamespace() ? ns.monotonic() : 0, ns.inNamespace() ? ns.boottime() : 0);
    }

    /** The kernel serves the counter-backed clocks (kernel mode). */
    private static Map<ClockId, Serving> kernelSource(Instant since) {
        checkConfiguration();
        return sources(Path.KERNEL, "kernel clock_gettime: " + kernelReason(), since);
    }

    private static Map<ClockId, Serving> exactSource(Instant since) {
        return sources(Path.COUNTER, "exact: the kernel's vDSO data (" + KernelVdso.state().layout().description()
                + ") with the vDSO's arithmetic around " + KernelVdso.counterRead() + ", equal to clock_gettime; now "
                + KernelVdso.vclockNow() + (KernelVdso.timens().inNamespace() ? "; with the time namespace's offsets"
                        : ""), since);
    }

    /** Native access denied: the JDK's two clocks, and every other clock refused with what to add. */
    private static Map<ClockId, Serving> denied(Instant since) {
        Map<ClockId, Serving> m = new EnumMap<>(ClockId.class);
        for (ClockId c : ClockId.values()) {
            m.put(c, c == ClockId.MONOTONIC || c == ClockId.REALTIME
                    ? new Serving(c, Path.KERNEL, "the JDK's clock (clock_gettime): " + FastPath.reason(), since)
                    : new Serving(c, Path.KERNEL, "unsupported: " + FastPath.reason(), since));
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

    /** Every clock's path: {@code counterBacked} and {@code why} for the counter-backed ones, the kernel else. */
    private static Map<ClockId, Serving> sources(Path counterBacked, String why, Instant since) {
        Map<ClockId, Serving> m = new EnumMap<>(ClockId.class);
        for (ClockId c : ClockId.values()) {
            if (Clocks.isCounterBacked(c)) {
                m.put(c, new Serving(c, counterBacked, why, since));
            } else if (c.isAux() && counterBacked == Path.COUNTER && ServingMode.PROCESS == ServingMode.EXACT
                    && KernelVdso.servesAux(c.id() - ClockId.AUX_BASE)) {
                m.put(c, new Serving(c, Path.COUNTER, "exact: the kernel's AUX clock data with the "
                        + "vDSO's arithmetic (do_aux), equal to clock_gettime", since));
            } else if (c == ClockId.REALTIME_COARSE || c == ClockId.MONOTONIC_COARSE) {
                m.put(c, new Serving(c, Path.KERNEL,
                        "kernel clock_gettime (vDSO): COARSE means the kernel's value at its last tick", since));
            } else {
                m.put(c, new Serving(c, Path.KERNEL, LinuxTime.clockGettimeErrno(c.id()) == 0
                        ? "kernel clock_gettime: no counter-based equivalent"
                        : "unsupported: " + Clocks.whyUnsupported(c).orElse(""), since));
            }
        }
        return m;
    }
}
