package org.timekeeping4j.cli;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.device.PtpCapabilities;
import org.timekeeping4j.device.PtpClock;
import org.timekeeping4j.device.PtpOffset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tk4j phc DEVICE}: a PTP hardware clock's capabilities and its offset to a system clock, like phc2sys -m. */
@Command(name = "phc", mixinStandardHelpOptions = true,
        description = "Offset and delay of a PTP hardware clock (/dev/ptpN) against a system clock, one line per "
                + "measurement (each keeps the shortest-delay of 5 kernel samples), like phc2sys -m.%n"
                + "Exit: 0 measured, 2 bad usage, 4 the device is missing or no PTP clock.")
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
}
