package org.timekeeping4j.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.timekeeping4j.device.PpsEvent;
import org.timekeeping4j.device.PpsSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tk4j pps DEVICE}: PPS events as ppstest prints them. */
@Command(name = "pps", mixinStandardHelpOptions = true,
        description = "Capabilities and events of a PPS source (/dev/ppsN), printed like ppstest.%n"
                + "Exit: 0 every event came, 1 an event did not come in time, 2 bad usage, 4 the device is missing "
                + "or no PPS source.")
final class PpsCommand extends DeviceCommand {

    static final int MAX_COUNT = 1_000_000;

    @Parameters(index = "0", paramLabel = "DEVICE", description = "The PPS device, e.g. /dev/pps0.")
    Path device;

    @Option(names = "--count", defaultValue = "5", paramLabel = "N",
            description = "Events to print: 1..1000000 (default ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--timeout", defaultValue = "3", paramLabel = "SECONDS",
            description = "Seconds to wait for each event: 0..3600, 0 polls once without waiting (default "
                    + "${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        Validate.range(spec, "--count", count, 1, MAX_COUNT);
        Validate.seconds(spec, "--timeout", timeoutSeconds, 0, true, Validate.MAX_RUN_SECONDS);
        Duration timeout = Duration.ofNanos((long) (timeoutSeconds * 1e9));
        try (PpsSource pps = PpsSource.open(device)) {
            line("%s%n", Terminal.folded(String.format("%s: capabilities 0x%x %s", device, pps.capabilities(),
                    String.join(" ", pps.capabilityNames())), Terminal.width(spec), "  "));
            String missing = null;
            for (int i = 0; i < count && missing == null; i++) {
                Optional<PpsEvent> e = pps.fetch(timeout);
                if (e.isEmpty()) {
                    missing = device + ": no new PPS event within " + timeoutSeconds + " s";
                } else {
                    row(() -> {
                        Map<String, Object> m = Json.fields(e.get());
                        m.put("assertEpochNanos", e.get().assertEpochNanos());
                        m.put("clearEpochNanos", e.get().clearEpochNanos());
                        return m;
                    }, "%s%n", e.get()); // ppstest's line without "source N - ": the device heads the output
                }
            }
            String error = missing;
            end(() -> {
                Map<String, Object> m = object(device);
                m.put("capabilities", pps.capabilities());
                m.put("capabilityNames", pps.capabilityNames());
                m.put("events", rows());
                m.put("error", error);
                return m;
            });
            if (missing != null) {
                spec.commandLine().getErr().println("tk4j: " + missing);
                return Tk4j.EXIT_FAILED;
            }
        }
        return 0;
    }
}
