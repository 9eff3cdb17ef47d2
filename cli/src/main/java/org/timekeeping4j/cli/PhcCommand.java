package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.device.PtpCapabilities;
import org.timekeeping4j.device.PtpClock;
import org.timekeeping4j.device.PtpOffset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tk4j phc DEVICE}: a PTP hardware clock's capabilities and its offset to a system clock, like phc2sys -m. */
@Command(name = "phc", mixinStandardHelpOptions = true,
        description = "Offset and delay of a PTP hardware clock (/dev/ptpN) against a system clock, one line per "
                + "measurement (each keeps the shortest-delay of 5 kernel samples), like phc2sys -m.")
final class PhcCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DEVICE", description = "The PTP clock device, e.g. /dev/ptp0.")
    Path device;

    @Option(names = "--samples", defaultValue = "5", paramLabel = "N", description = "Measurements to print (default 5).")
    int samples;

    @Option(names = "--clock", defaultValue = "REALTIME", paramLabel = "CLOCK",
            description = "System clock to compare with: REALTIME, MONOTONIC, MONOTONIC_RAW, AUX_0..7 (default REALTIME).")
    String clock;

    @Option(names = "--interval", defaultValue = "0", paramLabel = "MS",
            description = "Milliseconds between measurements (default 0).")
    long intervalMillis;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (samples < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--samples must be at least 1, got " + samples);
        }
        ClockId system = parseClock(spec, clock);
        PrintWriter out = spec.commandLine().getOut();
        try (PtpClock phc = PtpClock.open(device)) {
            PtpCapabilities c = phc.capabilities();
            out.printf("%s: max_adj %d ppb, %d alarms, %d ext ts, %d per out, pps %s, %d pins, cross timestamping %s%n",
                    device, c.maxAdjustmentPpb(), c.alarms(), c.externalTimestamps(), c.periodicOutputs(),
                    c.pps() ? "yes" : "no", c.pins(), c.crossTimestamping() ? "yes" : "no");
            for (int i = 0; i < samples; i++) {
                if (i > 0 && intervalMillis > 0) {
                    Thread.sleep(intervalMillis);
                }
                PtpOffset o = phc.offset(system, PtpClock.DEFAULT_SAMPLES);
                out.printf("%s %s offset %9d ns delay %6d ns method %s%n", device, system.kernelName(),
                        o.offsetNanos(), o.delayNanos(), o.method());
            }
            out.flush();
        }
        return 0;
    }

    static ClockId parseClock(CommandSpec spec, String name) {
        String n = name.toUpperCase(Locale.ROOT).replaceFirst("^CLOCK_", "");
        try {
            return ClockId.valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown clock '" + name
                    + "' (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI, AUX_0..AUX_7)");
        }
    }
}
