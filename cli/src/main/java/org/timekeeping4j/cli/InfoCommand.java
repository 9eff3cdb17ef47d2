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
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.SyncStatus;
import org.timekeeping4j.device.BoundedClock;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.timekeeping4j.cli.text.Prose;

/** {@code tk4j info}: what this machine offers for timekeeping, and the state of every clock. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Kernel, clocksource, counter flags, every clock id, the NTP sync status and whether CLOCK_TAI is TAI.")
final class InfoCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        // Measured once (only where the clocksource's name says reads may be system calls), said in both forms.
        java.util.Optional<ClocksourceCost> cost = ClocksourceCost.here();
        Map<String, Object> report = report(cost);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(report, Terminal.width(spec)));
        } else {
            printHuman(new Lines(out, Terminal.width(spec)), report, cost);
        }
        return 0;
    }

    static Map<String, Object> report(java.util.Optional<ClocksourceCost> cost) {
        Map<String, Object> r = new LinkedHashMap<>();
        LinuxTime.Uname uname = LinuxTime.uname();
        r.put("kernel", uname.sysname() + " " + uname.release());
        r.put("machine", uname.machine());
        r.put("java", Runtime.version().toString());
        r.put("currentClocksource", KernelInfo.currentClocksource());
        r.put("availableClocksources", KernelInfo.availableClocksources());
        r.put("counterFlags", KernelInfo.counterFlags());
        cost.ifPresent(c -> r.put("clocksourceCost", c.toMap()));
        Diagnostics d = Clocks.diagnostics();
        r.put("exactMode", exactReport(d.vdsoData()));
        r.put("ticks", ticksReport(d.ticks()));
        // A VMClock page (the hypervisor's disruption marker), or its ACPI device without a driver: one line.
        VmClockCommand.infoLine().ifPresent(l -> r.put("vmclock", new Prose(l)));
        r.put("calibration", calibrationReport(d.vdsoData()));
        r.put("timeNamespace", new Prose(timeNamespace(d.vdsoData().serves())));
        List<Map<String, Object>> clocks = new ArrayList<>();
        for (ClockId c : ClockId.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", c.id());
            m.put("name", c.kernelName());
            var why = Clocks.whyUnsupported(c);
            m.put("supported", why.isEmpty());
            if (why.isEmpty()) {
                m.put("resolutionNs", KernelClocks.resolutionNanos(c));
                m.put("nanos", KernelClocks.nanos(c));
            } else {
                m.put("reason", new Prose(why.get()));
            }
            clocks.add(m);
        }
        r.put("clocks", clocks);
        r.put("sync", syncReport(SyncStatus.read()));
        r.put("tai", taiReport(d));
        r.put("bounds", new Prose(boundsLine()));
        r.put("history", new Prose(org.timekeeping4j.Clocks.diagnostics().history()));
        return r;
    }

    /**
     * This process's time namespace: its offsets as the kernel states them (/proc/self/timens_offsets: a restored
     * checkpoint runs in one, so that MONOTONIC and BOOTTIME continue), and who applies them.
     */
    static String timeNamespace(boolean exact) {
        String offsets = "/proc/self/timens_offsets";
        long mono;
        long boot;
        try {
            org.timekeeping4j.linux.TimeNamespace.Offsets o = org.timekeeping4j.linux.TimeNamespace.offsets();
            mono = o.monotonicNanos();
            boot = o.boottimeNanos();
        } catch (java.io.IOException e) {
            return "unknown (" + offsets + ": " + e.getMessage() + "; time namespaces need Linux 5.6+)";
        }
        if (mono == 0 && boot == 0) {
            return "none of its own (offsets 0)";
        }
        return String.format(java.util.Locale.ROOT, "its own: MONOTONIC %+.9f s, BOOTTIME %+.9f s (%s); %s", mono / 1e9,
                boot / 1e9, offsets, exact ? "exact mode serves with these offsets"
                        : "clock_gettime applies them (exact mode does not serve)");
    }

    static Map<String, Object> exactReport(Diagnostics.VdsoData k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("enabled", k.serves());
        m.put("mode", new Prose(k.serves() ? "exact: the kernel's vDSO data with the vDSO's arithmetic, one downcall "
                + "around " + k.counterRead() : "kernel clock_gettime (exact mode refused: " + k.why() + ")"));
        m.put("layout", k.layout());
        m.put("vclock", new Prose(k.vclock()));
        if (k.serves()) {
            m.put("hresMult", k.steeredMult());
            m.put("hresShift", k.steeredShift());
            m.put("rawMult", k.rawMult());
            m.put("rawShift", k.rawShift());
            m.put("rawFrequencyHz", k.frequencyHz());
            m.put("steeringPpb", k.steeringPpb());
        }
        return m;
    }

    /**
     * What converts counter values now ({@link Diagnostics.VdsoData}'s raw line): the kernel's own mult/shift, exact
     * (uncertainty 0), or none and why.
     */
    static Map<String, Object> calibrationReport(Diagnostics.VdsoData k) {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean valid = k.convertsCounter();
        m.put("valid", valid);
        m.put("frequencyHz", valid ? k.frequencyHz() : 0.0);
        m.put("uncertaintyPpb", 0.0);
        m.put("mult", valid ? k.rawMult() : 0L);
        m.put("shift", valid ? k.rawShift() : 0);
        m.put("source", new Prose(calibrationSource(k)));
        return m;
    }

    /** Where the conversion's parameters come from, or why there are none (one line). */
    static String calibrationSource(Diagnostics.VdsoData k) {
        if (k.convertsCounter()) {
            return "the kernel's own CS_RAW mult/shift from its vDSO data (" + k.layout()
                    + "); exact, updated by the kernel" + (k.vclock().startsWith("kvm-clock")
                    ? "; it converts kvm-clock's nanoseconds, which ticks (TSC cycles) reach through the pvclock"
                    + " page's scale" : "");
        }
        return k.serves() ? "exact mode: the kernel's vDSO data no longer serves the counter (clock_mode changed)"
                : k.why();
    }

    /** What Clocks.ticks() returns, as the library's diagnostics say: the one answer, never a second one. */
    static Map<String, Object> ticksReport(Diagnostics.Ticks t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("counterCycles", t.counterCycles());
        m.put("counter", t.counter());
        m.put("read", t.read());
        m.put("frequencyHz", t.frequencyHz());
        return m;
    }

    /** The ticks line of the human form: what they count, what reads them, at what rate. */
    static String ticksLine(Diagnostics.Ticks t) {
        String rate = t.frequencyHz() > 0 ? String.format(java.util.Locale.ROOT, ", %.6f MHz", t.frequencyHz() / 1e6)
                : ", rate not stated by the kernel's data now";
        return t.counter() + ", read with " + t.read() + rate + (t.counterCycles()
                ? " (Clocks.ticks(); Clocks.ticksToNanos converts them with the kernel's data)"
                : " (Clocks.ticks(): exact mode never served in this process)");
    }

    static Map<String, Object> syncReport(SyncStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("available", s.isAvailable());
        if (!s.isAvailable()) {
            m.put("errno", s.errno());
            m.put("reason", new Prose(s.availability()));
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

    /** CLOCK_TAI against the leap-second list: the diagnostics' verdict, the one line, never a second one. */
    static Map<String, Object> taiReport(Diagnostics d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("confirmed", d.taiConfirmed());
        m.put("verdict", new Prose(d.tai()));
        return m;
    }

    /** Label-and-value lines folded to the width, the later lines under the value (column 14). */
    private record Lines(PrintWriter out, int width) {
        void label(String label, String format, Object... args) {
            out.println(Terminal.folded(String.format("%-13s %s", label, String.format(format, args)), width,
                    " ".repeat(14)));
        }

        void row(String text, int indent) {
            out.println(Terminal.folded(text, width, " ".repeat(indent)));
        }
    }

    @SuppressWarnings("unchecked")
    private static void printHuman(Lines out, Map<String, Object> r, java.util.Optional<ClocksourceCost> cost) {
        out.label("kernel", "%s (%s), Java %s", r.get("kernel"), r.get("machine"), r.get("java"));
        out.label("clocksource", "%s (available: %s)", orNone(r.get("currentClocksource")),
                String.join(" ", (List<String>) r.get("availableClocksources")));
        cost.ifPresent(c -> {
            List<String> lines = c.lines();
            out.label("slow reads", "%s", lines.get(0));
            lines.subList(1, lines.size()).forEach(l -> out.label("", "%s", l));
        });
        List<String> flags = (List<String>) r.get("counterFlags");
        out.label("counter flags", "%s", flags.isEmpty() ? "(none)" : String.join(" ", flags));
        Map<String, Object> x0 = (Map<String, Object>) r.get("exactMode");
        out.label("fast clocks", "%s", x0.get("mode"));
        if ((Boolean) x0.get("enabled")) {
            out.label("kernel data", "%s; mult %d (steered, %+.1f ppb) / %d (raw), shift %d, %.6f MHz",
                    x0.get("layout"), x0.get("hresMult"), x0.get("steeringPpb"), x0.get("rawMult"),
                    x0.get("rawShift"), (Double) x0.get("rawFrequencyHz") / 1e6);
        }
        out.label("vclock", "%s", x0.get("vclock"));
        out.label("time ns", "%s", r.get("timeNamespace"));
        Map<String, Object> t = (Map<String, Object>) r.get("ticks");
        out.label("ticks", "%s", ticksLine(new Diagnostics.Ticks((Boolean) t.get("counterCycles"),
                (String) t.get("counter"), (String) t.get("read"), (Double) t.get("frequencyHz"))));
        // What converts counter values (the diagnostics' kernel raw line).
        Map<String, Object> cal = (Map<String, Object>) r.get("calibration");
        if ((Boolean) cal.get("valid")) {
            out.label("calibration", "%.6f MHz +/- %.0f ppb (mult %d, shift %d): %s",
                    (Double) cal.get("frequencyHz") / 1e6, cal.get("uncertaintyPpb"), cal.get("mult"),
                    cal.get("shift"), cal.get("source"));
        } else {
            out.label("calibration", "none in use: %s", cal.get("source"));
        }
        out.out().println();
        clockTable(out, (List<Map<String, Object>>) r.get("clocks"));
        out.out().println();
        Map<String, Object> s = (Map<String, Object>) r.get("sync");
        if (!(Boolean) s.get("available")) {
            out.label("sync status", "%s", s.get("reason"));
        } else {
            out.label("sync status", "%s, state %s, maxerror %d us, esterror %d us, offset %d ns, freq %.3f ppb, "
                            + "TAI-UTC %d s",
                    (Boolean) s.get("synchronized") ? "synchronized" : "NOT synchronized (maxerror >= 16 s)",
                    s.get("state"), s.get("maxErrorUs"), s.get("estErrorUs"), s.get("offsetNs"),
                    s.get("frequencyPpb"), s.get("taiOffsetS"));
            out.label("", "flags %s", s.get("flags"));
        }
        out.label("tai", "%s", ((Map<String, Object>) r.get("tai")).get("verdict"));
        out.label("bounds", "%s", r.get("bounds"));
        out.label("history", "%s", r.get("history"));
        if (r.get("vmclock") != null) {
            out.label("vmclock", "%s", r.get("vmclock"));
        }
    }

    /** BoundedClock.system(): its source, why it was chosen, and what it said at its last sample (one line). */
    private static String boundsLine() {
        try {
            BoundedClock.system(); // chooses and samples the source: the diagnostics then say which and why
            return org.timekeeping4j.Clocks.diagnostics().bounds();
        } catch (DeviceException | IllegalArgumentException e) {
            return "unusable: " + e.getMessage();
        }
    }

    /** The value column of the clock table. */
    private static final int VALUE_COLUMN = 43;

    /**
     * One row per clock; a run of three or more unreadable AUX clocks with one reason folds into one row
     * ("16-23 CLOCK_AUX+0..+7 no ..."). An unreadable clock's reason is said without its own name again.
     */
    @SuppressWarnings("unchecked")
    private static void clockTable(Lines out, List<Map<String, Object>> clocks) {
        out.out().printf("%-5s %-24s %-3s %6s  %s%n", "id", "clock", "ok", "res", "value");
        for (int i = 0; i < clocks.size(); i++) {
            Map<String, Object> c = clocks.get(i);
            String name = (String) c.get("name");
            if ((Boolean) c.get("supported")) {
                ClockId id = ClockId.of((Integer) c.get("id"));
                out.row(String.format("%-5d %-24s %-3s %6s  %s", c.get("id"), name, "yes",
                        MainJob.res((Long) c.get("resolutionNs")),
                        formatValue(id, (Long) c.get("nanos"))), VALUE_COLUMN);
                continue;
            }
            String reason = reasonWithoutName(c);
            int last = i;
            while (last + 1 < clocks.size() && !(Boolean) clocks.get(last + 1).get("supported")
                    && ((String) clocks.get(last + 1).get("name")).startsWith("CLOCK_AUX+")
                    && name.startsWith("CLOCK_AUX+") && reasonWithoutName(clocks.get(last + 1)).equals(reason)) {
                last++;
            }
            if (last - i >= 2) {
                String lastName = (String) clocks.get(last).get("name");
                out.row(String.format("%-5s %-24s %-3s %6s  %s", c.get("id") + "-" + clocks.get(last).get("id"),
                        name + "..+" + lastName.substring("CLOCK_AUX+".length()), "no", "-", reason), VALUE_COLUMN);
                i = last;
            } else {
                out.row(String.format("%-5d %-24s %-3s %6s  %s", c.get("id"), name, "no", "-", reason),
                        VALUE_COLUMN);
            }
        }
    }

    /** "needs an alarm-capable RTC ..." of "CLOCK_REALTIME_ALARM needs an alarm-capable RTC ...". */
    private static String reasonWithoutName(Map<String, Object> c) {
        String name = (String) c.get("name");
        String reason = String.valueOf(c.get("reason"));
        return (reason.startsWith(name + " ") ? reason.substring(name.length() + 1) : reason)
                .replaceAll("/aux_clocks/\\d+/", "/aux_clocks/N/");
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
