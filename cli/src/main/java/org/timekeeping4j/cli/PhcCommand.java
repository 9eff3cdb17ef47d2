package org.timekeeping4j.cli;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.device.FastPtpClock;
import org.timekeeping4j.device.PtpCapabilities;
import org.timekeeping4j.device.PtpClock;
import org.timekeeping4j.device.PtpOffset;
import org.timekeeping4j.device.TimeBounds;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tk4j phc DEVICE}: a PTP hardware clock's capabilities and its offset to a system clock, like phc2sys -m. */
@Command(name = "phc", mixinStandardHelpOptions = true,
        description = "Offset and delay of a PTP hardware clock (/dev/ptpN) against a system clock, one line per "
                + "measurement (each keeps the shortest-delay of 5 kernel samples), like phc2sys -m.%n"
                + "Exit: 0 measured, 1 (--fast) an estimate missed clock_gettime, 2 bad usage, 4 the device is "
                + "missing or no PTP clock.")
final class PhcCommand extends DeviceCommand {

    /** The system clocks a PHC is compared with: the kernel's cross-timestamp clocks and the AUX clocks. */
    static final Set<ClockId> CLOCKS = EnumSet.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.MONOTONIC_RAW,
            ClockId.BOOTTIME, ClockId.TAI, ClockId.AUX_0, ClockId.AUX_1, ClockId.AUX_2, ClockId.AUX_3, ClockId.AUX_4,
            ClockId.AUX_5, ClockId.AUX_6, ClockId.AUX_7);
    static final int MAX_SAMPLES = 1_000_000;
    static final long MAX_INTERVAL_MILLIS = 3_600_000;

    @Parameters(index = "0", paramLabel = "DEVICE", description = "The PTP clock device, e.g. /dev/ptp0.")
    Path device;

    @Option(names = "--samples", defaultValue = "5", paramLabel = "N",
            description = "Measurements to print: 1..1000000 (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--clock", defaultValue = "REALTIME", paramLabel = "CLOCK", converter = ClockConverter.class,
            description = "System clock to compare with: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI or "
                    + "CLOCK_AUX+0 to CLOCK_AUX+7, with or without CLOCK_, or the kernel id (default REALTIME).")
    ClockId clock;

    @Option(names = "--interval", defaultValue = "0", paramLabel = "MS",
            description = "Milliseconds between measurements: 0..3600000 (default ${DEFAULT-VALUE}).")
    long intervalMillis;

    @Option(names = "--fast", description = "Instead of offsets: the PHC at counter speed (PtpClock.fast: one "
            + "MONOTONIC_RAW read, disciplined by cross timestamps) beside clock_gettime on the PHC before and after "
            + "it, with its uncertainty, its cross timestamp's age and method.")
    boolean fast;

    @Override
    public Integer call() throws Exception {
        Validate.range(spec, "--samples", samples, 1, MAX_SAMPLES);
        Validate.range(spec, "--interval", intervalMillis, 0, MAX_INTERVAL_MILLIS);
        if (!CLOCKS.contains(clock)) {
            throw Validate.usage(spec, "--clock " + clock.kernelName() + ": not for a PTP clock (REALTIME, "
                    + "MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, CLOCK_AUX+0..7 are)");
        }
        try (PtpClock phc = PtpClock.open(device)) {
            PtpCapabilities c = phc.capabilities();
            String caps = String.format("%s: max_adj %d ppb, %d alarms, %d ext ts, %d per out, pps %s, %d pins,",
                    device, c.maxAdjustmentPpb(), c.alarms(), c.externalTimestamps(), c.periodicOutputs(),
                    c.pps() ? "yes" : "no", c.pins());
            String cross = "cross timestamping " + (c.crossTimestamping() ? "yes" : "no");
            // On one line where it fits the width, else the cross-timestamping part whole on the next.
            line("%s%s%s%n", caps, caps.length() + 1 + cross.length() <= Terminal.width(spec) ? " "
                    : System.lineSeparator() + "  ", cross);
            if (fast) {
                return fast(phc);
            }
            for (int i = 0; i < samples; i++) {
                if (i > 0 && intervalMillis > 0) {
                    Thread.sleep(intervalMillis);
                }
                PtpOffset o = phc.offset(clock, PtpClock.DEFAULT_SAMPLES);
                row(() -> Json.fields(o), "%s %s offset %9d ns delay %6d ns method %s%n", device,
                        clock.kernelName(), o.offsetNanos(), o.delayNanos(), o.method());
            }
            // The methods the driver refused (EOPNOTSUPP/ENOTTY), tried and skipped on each measurement: one line.
            java.util.Set<PtpClock.Method> refused = phc.refusedMethods(clock);
            if (!refused.isEmpty()) {
                line("%s: refused by the driver for %s: %s (each measured by the next method)%n", device,
                        clock.kernelName(), refused.stream().map(Enum::name).collect(
                                java.util.stream.Collectors.joining(", ")));
            }
            end(() -> {
                Map<String, Object> m = object(device);
                m.put("clock", clock.kernelName());
                m.put("refusedMethods", refused.stream().map(Enum::name).toList());
                m.put("capabilities", Json.fields(c));
                m.put("measurements", rows());
                return m;
            });
        }
        return 0;
    }

    /**
     * {@code --fast}: per sample the counter-speed estimate, its half-width and its cross timestamp's age, with the two
     * clock_gettime reads of the PHC around it (syscall before/after, ns from the estimate): "holds" where its
     * interval meets theirs (the PHC's time at the estimate's read lies between them), else MISSES (exit 1).
     */
    private int fast(PtpClock phc) throws Exception {
        int misses = 0;
        try (FastPtpClock f = phc.fast()) {
            line("%s%n", f.describe());
            TimeBounds b = new TimeBounds();
            for (int i = 0; i < samples; i++) {
                if (i > 0 && intervalMillis > 0) {
                    Thread.sleep(intervalMillis);
                }
                long before = phc.nanos();
                f.now(b);
                long after = phc.nanos();
                long age = f.anchorAgeNanos();
                boolean bounded = b.status() == TimeBounds.Status.SYNCHRONIZED;
                boolean holds = bounded && b.latestNanos() >= before && b.earliestNanos() <= after;
                misses += bounded && !holds ? 1 : 0;
                String method = f.method().map(Enum::name).orElse("none");
                row(() -> {
                    Map<String, Object> m = new java.util.LinkedHashMap<>();
                    m.put("fastNanos", b.nanos());
                    m.put("earliestNanos", bounded ? b.earliestNanos() : null);
                    m.put("latestNanos", bounded ? b.latestNanos() : null);
                    m.put("status", b.status().name());
                    m.put("anchorAgeNanos", age);
                    m.put("method", method);
                    m.put("clockGettimeBeforeNanos", before);
                    m.put("clockGettimeAfterNanos", after);
                    m.put("holds", holds);
                    return m;
                }, "%s +/- %s (%.1f ms old), syscall %+d/%+d ns: %s%n", seconds(b.nanos()),
                        bounded ? (b.widthNanos() + 1) / 2 + " ns" : "unbounded", age / 1e6, before - b.nanos(),
                        after - b.nanos(), !bounded ? b.status() : holds ? "holds" : "MISSES");
            }
            String describe = f.describe();
            end(() -> {
                Map<String, Object> m = object(device);
                m.put("estimate", new org.timekeeping4j.cli.text.Prose(describe));
                m.put("readings", rows());
                return m;
            });
        }
        return misses == 0 ? 0 : Tk4j.EXIT_FAILED;
    }

    /** "1700000000.123456789": ns as seconds, the way clock_gettime's timespec reads. */
    static String seconds(long nanos) {
        return Math.floorDiv(nanos, 1_000_000_000L) + "." + String.format("%09d", Math.floorMod(nanos, 1_000_000_000L));
    }
}
