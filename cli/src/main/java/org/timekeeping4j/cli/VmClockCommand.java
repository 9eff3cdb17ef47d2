package org.timekeeping4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.device.DeviceException;
import org.timekeeping4j.device.TimeBounds;
import org.timekeeping4j.device.VmClock;
import org.timekeeping4j.device.VmClockPage;
import org.timekeeping4j.linux.Errno;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tk4j vmclock [PATH]}: a VMClock page decoded, or watched for disruptions. */
@Command(name = "vmclock", mixinStandardHelpOptions = true,
        description = "Decodes a VMClock page (/dev/vmclockN, driver ptp_vmclock, Linux 6.13+; or a file "
                + "holding one): status, counter, time type, flags, disruption marker and VM generation, "
                + "error fields, and the time now with its bound where the page serves it.%n"
                + "--watch prints each change of marker, generation or status with the time it was seen.%n"
                + "Exit: 0 decoded (or watched), 2 bad usage, 4 the page is missing, unreadable or malformed.")
final class VmClockCommand extends DeviceCommand {

    /** The ACPI id of the VMClock device (QEMU, Firecracker). */
    static final String ACPI_HID = "AMZNC10C";
    /** The ACPI device without its driver: what to load (ptp_vmclock, Linux 6.13+). */
    static final String NO_DRIVER = ACPI_HID + " has no driver: modprobe ptp_vmclock";

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATH",
            description = "The page: a VMClock device or a file holding a page (default /dev/vmclock0).")
    Path path;

    @Option(names = "--watch", description = "Print each change of disruption marker, VM generation or clock "
            + "status, with the CLOCK_REALTIME it was seen at, until --seconds pass.")
    boolean watch;

    @Option(names = "--seconds", defaultValue = "0", paramLabel = "SECONDS",
            description = "With --watch: how long to watch, 0..3600, 0 until interrupted (default 0).")
    double seconds;

    @Option(names = "--interval", defaultValue = "100", paramLabel = "MS",
            description = "With --watch: how often to look at the page, 1..60000 ms, where the driver sends no "
                    + "notification (default ${DEFAULT-VALUE}).")
    long intervalMillis;

    @Override
    public Integer call() throws Exception {
        Validate.seconds(spec, "--seconds", seconds, 0, true, Validate.MAX_RUN_SECONDS);
        Validate.range(spec, "--interval", intervalMillis, 1, 60_000);
        Path page = path != null ? path : VmClock.DEFAULT_PATH;
        try (VmClock clock = open(page)) {
            return watch ? watch(clock) : decode(clock);
        }
    }

    private static VmClock open(Path page) throws DeviceException {
        try {
            return VmClock.open(page);
        } catch (DeviceException e) {
            if (e.errno() == Errno.ENOENT && page.equals(VmClock.DEFAULT_PATH)) {
                Optional<String> why = acpiLine(Path.of("/sys/bus/acpi/devices"));
                if (why.isPresent()) {
                    throw new DeviceException(page, "missing; " + why.get());
                }
            }
            throw e;
        }
    }

    private int decode(VmClock clock) {
        VmClockPage p = clock.page();
        TimeBounds b = new TimeBounds();
        String served = now(clock, p, b);
        line("page            %s: %d bytes, version %d, seq_count %s%n", clock.path(), p.size(),
                p.version(), Integer.toUnsignedString(p.seqCount()));
        line("clock status    %s%n", p.clockStatusName());
        line("counter         %s%n", p.counterName());
        line("time type       %s%n", p.timeTypeName());
        line("flags           0x%s %s%n", Long.toHexString(p.flags()),
                p.flagNames().isEmpty() ? "(none)" : String.join(" ", p.flagNames()));
        line("disruption      marker %s%n", Long.toUnsignedString(p.disruptionMarker()));
        line("vm generation   %s%n", p.vmGenerationCounterPresent()
                ? Long.toUnsignedString(p.vmGenerationCounter()) : "absent (no VM_GEN_COUNTER_PRESENT)");
        line("tai offset      %d s%s%n", p.taiOffsetSec(),
                (p.flags() & VmClock.FLAG_TAI_OFFSET_VALID) != 0 ? "" : " (not valid)");
        line("leap            indicator %s, smearing hint %s%n", p.leapIndicatorName(),
                p.smearingHintName());
        line("counter value   %s%n", Long.toUnsignedString(p.counterValue()));
        line("period          %s / 2^(64+%d) s%s%n", Long.toUnsignedString(p.counterPeriodFracSec()),
                p.counterPeriodShift(), hz(p));
        line("period error    est %s%s, max %s%s (rate, same units)%n",
                Long.toUnsignedString(p.counterPeriodEsterrorRateFracSec()),
                valid(p, VmClock.FLAG_PERIOD_ESTERROR_VALID),
                Long.toUnsignedString(p.counterPeriodMaxerrorRateFracSec()),
                valid(p, VmClock.FLAG_PERIOD_MAXERROR_VALID));
        line("time            %s + %s / 2^64 s%n", Long.toUnsignedString(p.timeSec()),
                Long.toUnsignedString(p.timeFracSec()));
        line("time error      est %s ns%s, max %s ns%s%n", Long.toUnsignedString(p.timeEsterrorNanosec()),
                valid(p, VmClock.FLAG_TIME_ESTERROR_VALID), Long.toUnsignedString(p.timeMaxerrorNanosec()),
                valid(p, VmClock.FLAG_TIME_MAXERROR_VALID));
        line("now             %s%n", served);
        end(() -> {
            Map<String, Object> m = object(clock.path());
            m.putAll(fields(p));
            m.put("served", served.startsWith("not served") ? null : served);
            m.put("nanos", served.startsWith("not served") ? null : b.nanos());
            m.put("earliestNanos", served.startsWith("not served") ? null : bounded(b.earliestNanos()));
            m.put("latestNanos", served.startsWith("not served") ? null : bounded(b.latestNanos()));
            m.put("refusal", served.startsWith("not served") ? served : null);
            return m;
        });
        return 0;
    }

    /** The time now on the page's own scale with its bound, or "not served: why". */
    private static String now(VmClock clock, VmClockPage p, TimeBounds b) {
        ClockId scale = p.timeType() == 1 ? ClockId.TAI : ClockId.REALTIME;
        try {
            clock.now(b, scale);
        } catch (IllegalStateException e) {
            String m = e.getMessage();
            int at = m.indexOf("serves no time: ");
            return "not served: " + (at >= 0 ? m.substring(at + "serves no time: ".length()) : m);
        }
        String bound = b.widthNanos() == Long.MAX_VALUE ? "unbounded (no valid maximum error)"
                : "+/- " + (b.latestNanos() - b.nanos()) + " ns";
        return Instant.ofEpochSecond(0, b.nanos()) + " " + (scale == ClockId.TAI ? "TAI" : "UTC") + " "
                + bound + ", " + b.status();
    }

    /** Folded lines continue under the value column. */
    @Override
    int continuation() {
        return VALUE_COLUMN;
    }

    private static final int VALUE_COLUMN = 16;

    private static String valid(VmClockPage p, long flag) {
        return (p.flags() & flag) != 0 ? "" : " (not valid)";
    }

    private static String hz(VmClockPage p) {
        if (p.counterPeriodFracSec() == 0) {
            return "";
        }
        double seconds = Math.scalb(unsigned(p.counterPeriodFracSec()), -(64 + p.counterPeriodShift()));
        return String.format(" (%.6f MHz)", 1e-6 / seconds);
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
    }

    private static Long bounded(long nanos) {
        return nanos == Long.MIN_VALUE || nanos == Long.MAX_VALUE ? null : nanos;
    }

    private static Map<String, Object> fields(VmClockPage p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("size", p.size());
        m.put("version", p.version());
        m.put("seqCount", Integer.toUnsignedLong(p.seqCount()));
        m.put("clockStatus", p.clockStatusName());
        m.put("counter", p.counterName());
        m.put("timeType", p.timeTypeName());
        m.put("flags", p.flags());
        m.put("flagNames", p.flagNames());
        m.put("disruptionMarker", Long.toUnsignedString(p.disruptionMarker()));
        m.put("vmGenerationCounter", p.vmGenerationCounterPresent()
                ? Long.toUnsignedString(p.vmGenerationCounter()) : null);
        m.put("taiOffsetSec", p.taiOffsetSec());
        m.put("leapIndicator", p.leapIndicatorName());
        m.put("smearingHint", p.smearingHintName());
        m.put("counterValue", Long.toUnsignedString(p.counterValue()));
        m.put("counterPeriodShift", p.counterPeriodShift());
        m.put("counterPeriodFracSec", Long.toUnsignedString(p.counterPeriodFracSec()));
        m.put("counterPeriodEsterrorRateFracSec", Long.toUnsignedString(p.counterPeriodEsterrorRateFracSec()));
        m.put("counterPeriodMaxerrorRateFracSec", Long.toUnsignedString(p.counterPeriodMaxerrorRateFracSec()));
        m.put("timeSec", Long.toUnsignedString(p.timeSec()));
        m.put("timeFracSec", Long.toUnsignedString(p.timeFracSec()));
        m.put("timeEsterrorNanosec", Long.toUnsignedString(p.timeEsterrorNanosec()));
        m.put("timeMaxerrorNanosec", Long.toUnsignedString(p.timeMaxerrorNanosec()));
        return m;
    }

    /** Watches: the page's state first, then one line per change; notifications where the driver has them. */
    private int watch(VmClock clock) throws DeviceException, InterruptedException {
        VmClockPage last = clock.page();
        boolean notified = (last.flags() & VmClock.FLAG_NOTIFICATION_PRESENT) != 0
                && !Files.isRegularFile(clock.path());
        line("%s  watching %s: marker %s, generation %s, status %s (%s)%n", seen(), clock.path(),
                Long.toUnsignedString(last.disruptionMarker()), generation(last), last.clockStatusName(),
                notified ? "poll notifications" : "looking every " + intervalMillis + " ms");
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (seconds == 0 || System.nanoTime() - end < 0) {
            long left = seconds == 0 ? intervalMillis : Math.max(0, (end - System.nanoTime()) / 1_000_000);
            if (notified) {
                try {
                    clock.awaitChange(Duration.ofMillis(seconds == 0 ? 60_000 : left));
                } catch (DeviceException e) {
                    notified = false; // a driver without poll: fall back to looking
                    line("%s  no notifications after all; looking every %d ms%n", seen(), intervalMillis);
                }
            } else {
                Thread.sleep(Math.min(intervalMillis, Math.max(1, left)));
            }
            VmClockPage p = clock.page();
            String change = change(last, p);
            if (!change.isEmpty()) {
                VmClockPage from = last;
                row(() -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("seenNanos", KernelClocks.nanos(ClockId.REALTIME));
                    m.put("disruptionMarker", Long.toUnsignedString(p.disruptionMarker()));
                    m.put("previousDisruptionMarker", Long.toUnsignedString(from.disruptionMarker()));
                    m.put("vmGenerationCounter", p.vmGenerationCounterPresent()
                            ? Long.toUnsignedString(p.vmGenerationCounter()) : null);
                    m.put("clockStatus", p.clockStatusName());
                    return m;
                }, "%s  %s%n", seen(), change);
                spec.commandLine().getOut().flush();
            }
            last = p;
        }
        end(() -> {
            Map<String, Object> m = object(clock.path());
            m.put("changes", rows());
            return m;
        });
        return 0;
    }

    private static String seen() {
        return Instant.ofEpochSecond(0, KernelClocks.nanos(ClockId.REALTIME)).toString();
    }

    private static String generation(VmClockPage p) {
        return p.vmGenerationCounterPresent() ? Long.toUnsignedString(p.vmGenerationCounter()) : "absent";
    }

    /** What changed between two pages among marker, generation and status; "" when none did. */
    static String change(VmClockPage a, VmClockPage b) {
        StringBuilder s = new StringBuilder();
        if (a.disruptionMarker() != b.disruptionMarker()) {
            s.append("disruption marker ").append(Long.toUnsignedString(a.disruptionMarker())).append(" -> ")
                    .append(Long.toUnsignedString(b.disruptionMarker()));
        }
        if (!generation(a).equals(generation(b))) {
            s.append(s.isEmpty() ? "" : ", ").append("vm generation ").append(generation(a)).append(" -> ")
                    .append(generation(b));
        }
        if (a.clockStatus() != b.clockStatus()) {
            s.append(s.isEmpty() ? "" : ", ").append("clock status ").append(a.clockStatusName())
                    .append(" -> ").append(b.clockStatusName());
        }
        return s.toString();
    }

    /**
     * The one line {@code tk4j info} prints about VMClock: where the page is, or why there is none though
     * the hypervisor offers one, or nothing on a machine without the device.
     *
     * @return e.g. "VMClock found at /dev/vmclock0", or {@link #NO_DRIVER}; empty without either
     */
    static Optional<String> infoLine() {
        return infoLine(Path.of("/dev"), Path.of("/sys/bus/acpi/devices"));
    }

    /** {@link #infoLine()} over other roots (tests). */
    static Optional<String> infoLine(Path dev, Path acpiDevices) {
        try (Stream<Path> s = Files.list(dev)) {
            Optional<Path> page = s.filter(p -> p.getFileName().toString().matches("vmclock[0-9]+"))
                    .sorted().findFirst();
            if (page.isPresent()) {
                return Optional.of("VMClock found at " + page.get() + readable(page.get()));
            }
        } catch (IOException | RuntimeException e) {
            // no /dev to list: say nothing of it
        }
        return acpiLine(acpiDevices);
    }

    private static String readable(Path page) {
        if (Files.isReadable(page)) {
            return "";
        }
        return " (root-only: chmod a+r " + page + ", or run as root)";
    }

    /** The ACPI device without its page: no driver bound, or bound without a /dev node. */
    static Optional<String> acpiLine(Path acpiDevices) {
        try (Stream<Path> s = Files.list(acpiDevices)) {
            Optional<Path> device = s.filter(p -> p.getFileName().toString().startsWith(ACPI_HID + ":"))
                    .sorted().findFirst();
            if (device.isEmpty()) {
                return Optional.empty();
            }
            if (Files.exists(device.get().resolve("physical_node").resolve("driver"))) {
                return Optional.of(ACPI_HID + " has its driver, no /dev/vmclockN (under a page? devtmpfs?)");
            }
            return Optional.of(NO_DRIVER);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
