package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelData;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.clocksource.CounterSelection;
import org.timekeeping4j.clocksource.CounterSelector;
import org.timekeeping4j.clocksource.SeqlockReader;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tk4j info}: what this machine offers for timekeeping, and the state of every clock. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Kernel, clocksource, counter flags, every clock id and the NTP sync status.")
final class InfoCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Map<String, Object> report = report();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(report));
        } else {
            printHuman(out, report);
        }
        return 0;
    }

    static Map<String, Object> report() {
        Map<String, Object> r = new LinkedHashMap<>();
        LinuxTime.Uname uname = LinuxTime.uname();
        r.put("kernel", uname.sysname() + " " + uname.release());
        r.put("machine", uname.machine());
        r.put("java", Runtime.version().toString());
        r.put("currentClocksource", KernelInfo.currentClocksource());
        r.put("availableClocksources", KernelInfo.availableClocksources());
        r.put("counterFlags", KernelInfo.counterFlags());
        r.put("exactMode", exactReport(Clocks.kernelData()));
        r.put("counter", counterReport(CounterSelector.selected()));
        r.put("calibration", calibrationReport(Clocks.calibration()));
        List<Map<String, Object>> clocks = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", c.id());
            m.put("name", c.kernelName());
            var why = Clocks.whyUnsupported(c);
            m.put("supported", why.isEmpty());
            if (why.isEmpty()) {
                m.put("resolutionNs", Clocks.resolutionNanos(c));
                m.put("nanos", Clocks.kernelNanos(c));
            } else {
                m.put("reason", why.get());
            }
            clocks.add(m);
        }
        r.put("clocks", clocks);
        r.put("sync", syncReport(SyncStatus.read()));
        return r;
    }

    static Map<String, Object> exactReport(KernelData k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("enabled", k.enabled());
        m.put("mode", k.enabled() ? "exact: the kernel's vDSO data with the vDSO's arithmetic, one downcall around "
                + k.counterRead() : "tracker or kernel (exact mode refused: " + k.reason() + ")");
        m.put("layout", k.layout());
        m.put("vclock", k.vclock());
        if (k.enabled()) {
            m.put("hresMult", k.hresMult());
            m.put("hresShift", k.hresShift());
            m.put("rawMult", k.rawMult());
            m.put("rawShift", k.rawShift());
            m.put("rawFrequencyHz", k.rawFrequencyHz());
            m.put("steeringPpb", k.steeringPpb());
        }
        return m;
    }

    /** What converts counter values now ({@link Clocks#calibration()}): the kernel's mult/shift, or the tracker's. */
    static Map<String, Object> calibrationReport(org.timekeeping4j.Calibration c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("valid", c.valid());
        m.put("frequencyHz", c.frequencyHz());
        m.put("uncertaintyPpb", c.uncertaintyPpb());
        m.put("mult", c.mult());
        m.put("shift", c.shift());
        m.put("source", c.source());
        return m;
    }

    static Map<String, Object> counterReport(CounterSelection s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", s.mode().name().toLowerCase(java.util.Locale.ROOT));
        m.put("hardware", s.isHardware());
        m.put("clocksource", s.clocksource().name());
        m.put("read", s.readFlavour());
        SeqlockReader fused = s.isHardware() ? CounterSelector.processSeqlockReader() : null;
        m.put("clockRead", fused != null
                ? "machine code around " + fused.instructions() + " over timekeeper pages (counter, seqlock, conversion: one downcall)"
                : "Java seqlock reader around the counter read (no machine-code reader here)");
        m.put("ticksRead", s.ticks() instanceof org.timekeeping4j.clocksource.HardwareCounter h
                ? h.flavour().instructions() : s.readFlavour());
        m.put("frequencyHz", s.frequency().hz());
        m.put("uncertaintyPpb", s.frequency().uncertaintyPpb());
        m.put("frequencySource", s.frequency().source());
        m.put("widthBits", s.clocksource().widthBits());
        m.put("mult", s.clocksource().multShift().mult());
        m.put("shift", s.clocksource().multShift().shift());
        m.put("rejected", s.rejected().stream().map(r -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("candidate", r.candidate());
            x.put("reason", r.reason());
            return x;
        }).toList());
        return m;
    }

    static Map<String, Object> syncReport(SyncStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("available", s.isAvailable());
        if (!s.isAvailable()) {
            m.put("errno", s.errno());
            m.put("reason", s.availability());
            return m;
        }
        m.put("synchronized", s.isSynchronized());
        m.put("state", s.state().name());
        m.put("flags", s.flags().stream().map(Enum::name).toList());
        m.put("maxErrorUs", s.maxErrorMicros());
        m.put("estErrorUs", s.estErrorMicros());
        m.put("offsetNs", s.offsetNanos());
        m.put("frequencyPpb", s.frequencyPpb());
        m.put("taiOffsetS", s.taiOffsetSeconds());
        return m;
    }

    @SuppressWarnings("unchecked")
    private static void printHuman(PrintWriter out, Map<String, Object> r) {
        out.printf("kernel        %s (%s), Java %s%n", r.get("kernel"), r.get("machine"), r.get("java"));
        out.printf("clocksource   %s (available: %s)%n", orNone(r.get("currentClocksource")),
                String.join(" ", (List<String>) r.get("availableClocksources")));
        List<String> flags = (List<String>) r.get("counterFlags");
        out.printf("counter flags %s%n", flags.isEmpty() ? "(none)" : String.join(" ", flags));
        Map<String, Object> x0 = (Map<String, Object>) r.get("exactMode");
        out.printf("fast clocks   %s%n", x0.get("mode"));
        if ((Boolean) x0.get("enabled")) {
            out.printf("kernel data   %s; mult %d (steered, %+.1f ppb) / %d (raw), shift %d, %.6f MHz%n",
                    x0.get("layout"), x0.get("hresMult"), x0.get("steeringPpb"), x0.get("rawMult"),
                    x0.get("rawShift"), (Double) x0.get("rawFrequencyHz") / 1e6);
        }
        out.printf("vclock        %s%n", x0.get("vclock"));
        Map<String, Object> k = (Map<String, Object>) r.get("counter");
        out.printf("counter       %s read with %s (mode %s); ticks with %s%n", k.get("clocksource"), k.get("read"),
                k.get("mode"), k.get("ticksRead"));
        out.printf("tracker reads %s%n", k.get("clockRead"));
        // What converts counter values (Clocks.calibration()), then the selector's own start-up measurement of the
        // counter, which only decides whether the counter can be trusted.
        Map<String, Object> cal = (Map<String, Object>) r.get("calibration");
        if ((Boolean) cal.get("valid")) {
            out.printf("calibration   %.6f MHz +/- %.0f ppb (mult %d, shift %d): %s%n",
                    (Double) cal.get("frequencyHz") / 1e6, cal.get("uncertaintyPpb"), cal.get("mult"),
                    cal.get("shift"), cal.get("source"));
        } else {
            out.printf("calibration   none in use: %s%n", cal.get("source"));
        }
        out.printf("counter check %.6f MHz +/- %.0f ppb, %s (mult %d, shift %d, %d bit; the selector's check that "
                        + "the counter can be trusted, not what converts it)%n",
                (Double) k.get("frequencyHz") / 1e6, k.get("uncertaintyPpb"), k.get("frequencySource"),
                k.get("mult"), k.get("shift"), k.get("widthBits"));
        // With timekeeping4j.counter=kernel the hardware was not rejected: the kernel's clocks were chosen.
        String label = "kernel".equals(k.get("mode")) ? "  chosen    " : "  rejected  ";
        for (Map<String, Object> x : (List<Map<String, Object>>) k.get("rejected")) {
            out.printf("%s  %s: %s%n", label, x.get("candidate"), x.get("reason"));
        }
        out.println();
        out.printf("%-3s %-24s %-4s %12s  %s%n", "id", "clock", "ok", "resolution", "value");
        for (Map<String, Object> c : (List<Map<String, Object>>) r.get("clocks")) {
            String name = (String) c.get("name");
            if ((Boolean) c.get("supported")) {
                long nanos = (Long) c.get("nanos");
                ClockId id = ClockId.of((Integer) c.get("id"));
                out.printf("%-3d %-24s %-4s %10d ns  %s%n", c.get("id"), name, "yes", c.get("resolutionNs"),
                        formatValue(id, nanos));
            } else {
                out.printf("%-3d %-24s %-4s %12s  %s%n", c.get("id"), name, "no", "-", c.get("reason"));
            }
        }
        out.println();
        Map<String, Object> s = (Map<String, Object>) r.get("sync");
        if (!(Boolean) s.get("available")) {
            out.printf("sync status   %s%n", s.get("reason"));
        } else {
            out.printf("sync status   %s, state %s, maxerror %d us, esterror %d us, offset %d ns, freq %.3f ppb, "
                            + "TAI-UTC %d s%n",
                    (Boolean) s.get("synchronized") ? "synchronized" : "NOT synchronized (maxerror >= 16 s)",
                    s.get("state"), s.get("maxErrorUs"), s.get("estErrorUs"), s.get("offsetNs"),
                    s.get("frequencyPpb"), s.get("taiOffsetS"));
            out.printf("              flags %s%n", s.get("flags"));
        }
    }

    static String formatValue(ClockId id, long nanos) {
        String secs = String.format("%d.%09d s", Math.floorDiv(nanos, 1_000_000_000L),
                Math.floorMod(nanos, 1_000_000_000L));
        if (id.isEpochBased()) {
            return secs + "  (" + Instant.ofEpochSecond(0, nanos) + ")";
        }
        return secs;
    }

    private static Object orNone(Object o) {
        return o == null || o.toString().isEmpty() ? "(unknown)" : o;
    }
}
