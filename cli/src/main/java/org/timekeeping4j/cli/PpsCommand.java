package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.timekeeping4j.device.PpsEvent;
import org.timekeeping4j.device.PpsSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tk4j pps DEVICE}: PPS events as ppstest prints them. */
@Command(name = "pps", mixinStandardHelpOptions = true,
        description = "Capabilities and events of a PPS source (/dev/ppsN), printed like ppstest.")
final class PpsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DEVICE", description = "The PPS device, e.g. /dev/pps0.")
    Path device;

    @Option(names = "--count", defaultValue = "5", paramLabel = "N", description = "Events to print (default 5).")
    int count;

    @Option(names = "--timeout", defaultValue = "3", paramLabel = "SECONDS",
            description = "Seconds to wait for each event (default 3; 0 polls once without waiting).")
    double timeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (count < 1 || timeoutSeconds < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--count must be >= 1 and --timeout >= 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        Duration timeout = Duration.ofNanos((long) (timeoutSeconds * 1e9));
        try (PpsSource pps = PpsSource.open(device)) {
            out.printf("%s: capabilities 0x%x %s%n", device, pps.capabilities().bits(), pps.capabilities());
            for (int i = 0; i < count; i++) {
                Optional<PpsEvent> e = pps.fetch(timeout);
                if (e.isEmpty()) {
                    out.flush();
                    spec.commandLine().getErr().printf("tk4j: %s: no new PPS event within %s s%n", device,
                            timeoutSeconds);
                    return Tk4j.EXIT_FAILED;
                }
                out.printf("source %s - %s%n", device, e.get());
            }
            out.flush();
        }
        return 0;
    }
}
