package org.timekeeping4j.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.timekeeping4j.linux.LeapSecondList;

/**
 * The library's system properties, read once per process and parsed in this one place, so that every
 * part of the library sees the same values (a value is trimmed and its case ignored, everywhere alike):
 * <ul>
 *   <li>{@value #COUNTER}: the counter mode ({@link CounterMode}: auto, ordered, unordered, kernel);
 *       kernel also keeps exact mode from serving (the counter is not read by choice);</li>
 *   <li>{@value #VDSO}: auto (exact mode wherever the kernel's vDSO data validates) or off;</li>
 *   <li>{@value #EXECMEM}: allow (map the machine-code stubs) or deny (behave as if the system refused
 *       executable memory);</li>
 *   <li>{@value #VCLOCK}: auto (exact mode reads kvm-clock's pvclock page where it is backed) or off
 *       (clock_gettime answers every vclock mode: for comparisons and drills);</li>
 *   <li>{@value #DISCOVERY}: background (the kernel's clocks serve from the first read while exact mode is
 *       discovered on a daemon thread of its own) or caller (no thread: the first read discovers, once);</li>
 *   <li>{@value #BOUNDS}: the source of {@code BoundedClock.system()}: auto (a ClockBound segment where one
 *       exists, else chronyd where it answers on 127.0.0.1:323, else a VMClock page's own time where
 *       /dev/vmclock0 publishes it with a bound, else adjtimex), clockbound, chrony, vmclock or adjtimex;</li>
 *   <li>{@value #BOUNDS_DRIFT}: the drift, in ppm (default {@value #DEFAULT_BOUNDS_DRIFT_PPM}, above 0, at most
 *       500), that {@code BoundedClock.system()} assumes between the clock and true time while chronyd has not
 *       measured: its bound grows by that much of the time since chronyd's last update;</li>
 *   <li>{@value #LEAP_SECONDS}: the leap-second list that CLOCK_TAI's offset is checked against (default
 *       {@value org.timekeeping4j.linux.LeapSecondList#DEFAULT_PATH}). A path: trimmed, its case kept.</li>
 *   <li>{@value #HISTORY}: how long, in seconds, the kernel's parameter sets are kept once the process first
 *       converts ticks or makes an {@code EventRecorder} (default {@value #DEFAULT_HISTORY_SECONDS}, 0 to 3600;
 *       0 keeps none), so that a tick of that age converts exactly.</li>
 * </ul>
 * A value that names nothing is an error, one line naming the property, the value and the valid values; the
 * other properties still parse. Where a value is bad, its field holds the default, and the process warns once, one
 * line on stderr each ({@link #warnings()}: the error and the default used), at its first read: a typo in a tuning
 * flag never stops a read. A bad {@value #LEAP_SECONDS} also leaves CLOCK_TAI's offset unchecked, with its error
 * as the reason.
 *
 * @param counterName  the counter mode's name, lower case (auto where unset or bad; {@link #counter()})
 * @param exactMode    false when {@value #VDSO}=off
 * @param execmem      false when {@value #EXECMEM}=deny
 * @param vclock       false when {@value #VCLOCK}=off
 * @param counterError null, or why {@value #COUNTER}'s value names no mode
 * @param vdsoError    null, or why {@value #VDSO}'s value is neither auto nor off
 * @param execmemError null, or why {@value #EXECMEM}'s value is neither allow nor deny
 * @param vclockError  null, or why {@value #VCLOCK}'s value is neither auto nor off
 * @param onCaller     true when {@value #DISCOVERY}=caller
 * @param discoveryError null, or why {@value #DISCOVERY}'s value is neither background nor caller
 * @param bounds       the bounds source's name, lower case (auto where unset or bad)
 * @param boundsError  null, or why {@value #BOUNDS}'s value names no source or {@value #BOUNDS_DRIFT}'s no drift
 * @param boundsDriftPpb {@value #BOUNDS_DRIFT} in ppb (the default where unset or bad)
 * @param leapSeconds  the leap-second list's path (the default where unset or bad)
 * @param leapSecondsError null, or why {@value #LEAP_SECONDS}'s value is no path
 * @param historySeconds {@value #HISTORY} (the default where unset or bad)
 * @param historyError null, or why {@value #HISTORY}'s value is no length
 */
public record Configuration(String counterName, boolean exactMode, boolean execmem, boolean vclock,
        String counterError, String vdsoError, String execmemError, String vclockError, boolean onCaller,
        String discoveryError, String bounds, String boundsError, long boundsDriftPpb, String leapSeconds,
        String leapSecondsError, int historySeconds, String historyError) {

    /** How long the kernel's parameter sets are kept for converting old ticks, seconds. */
    public static final String HISTORY = "timekeeping4j.history";
    /** {@value #HISTORY}'s default: the minute the issue of deferred conversion asks for. */
    public static final int DEFAULT_HISTORY_SECONDS = 60;
    /** The counter mode's property. */
    public static final String COUNTER = "timekeeping4j.counter";
    /** Exact mode's property. */
    public static final String VDSO = "timekeeping4j.vdso";
    /** The machine-code stubs' property. */
    public static final String EXECMEM = "timekeeping4j.execmem";
    /** Exact mode's vclock readers' property. */
    public static final String VCLOCK = "timekeeping4j.vclock";
    /** Where exact mode is discovered: on a thread of its own, or on the first reader's. */
    public static final String DISCOVERY = "timekeeping4j.discovery";
    /** The source of {@code BoundedClock.system()}: auto, clockbound, chrony, vmclock or adjtimex. */
    public static final String BOUNDS = "timekeeping4j.bounds";
    /** The drift, ppm, that {@code BoundedClock.system()}'s bound assumes between measurements of its source. */
    public static final String BOUNDS_DRIFT = "timekeeping4j.bounds.drift";
    /** {@value #BOUNDS_DRIFT}'s default, ppm: three times the 16 ppm the lab's references drifted apart. */
    public static final int DEFAULT_BOUNDS_DRIFT_PPM = 50;
    /** The leap-second list's path, which CLOCK_TAI's offset is checked against. */
    public static final String LEAP_SECONDS = "timekeeping4j.leapSeconds";

    /**
     * This process's configuration, read from the system properties on first use of this class. The first read
     * of a clock pays for this class: no lambda (a cold JVM's first costs milliseconds), no class beyond it
     * ({@link CounterMode} loads only where {@value #COUNTER} is set).
     */
    public static final Configuration PROCESS = read(System.getProperties());

    /**
     * Parses the properties.
     *
     * @param properties the property values (String) by name (absent: unset)
     * @return the configuration
     */
    public static Configuration read(Map<?, ?> properties) {
        String counterValue = value(properties, COUNTER);
        String counterName = "auto";
        String counterError = null;
        if (counterValue != null) {
            try {
                counterName = CounterMode.parse(counterValue).name().toLowerCase(Locale.ROOT);
            } catch (IllegalArgumentException e) {
                counterError = e.getMessage();
            }
        }
        String vdsoValue = value(properties, VDSO);
        String vdso = normal(vdsoValue, "auto");
        String vdsoError = vdso.equals("auto") || vdso.equals("off") ? null : "unknown " + VDSO + "=" + vdsoValue
                + ": valid values are auto (exact mode wherever the kernel's vDSO data validates) and off";
        String execmemValue = value(properties, EXECMEM);
        String execmem = normal(execmemValue, "allow");
        String execmemError = execmem.equals("allow") || execmem.equals("deny") ? null
                : EXECMEM + "=" + execmemValue + " is not an execmem mode; use one of allow, deny";
        String vclockValue = value(properties, VCLOCK);
        String vclock = normal(vclockValue, "auto");
        String vclockError = vclock.equals("auto") || vclock.equals("off") ? null : "unknown " + VCLOCK + "="
                + vclockValue + ": valid values are auto (read kvm-clock's pvclock page where it is backed) and off";
        String discoveryValue = value(properties, DISCOVERY);
        String discovery = normal(discoveryValue, "background");
        String discoveryError = discovery.equals("background") || discovery.equals("caller") ? null
                : "unknown " + DISCOVERY + "=" + discoveryValue + ": valid values are background (a daemon thread"
                        + " discovers exact mode while the kernel's clocks serve) and caller (the first read does)";
        String boundsValue = value(properties, BOUNDS);
        String bounds = normal(boundsValue, "auto");
        String boundsError = null;
        if (!bounds.equals("auto") && !bounds.equals("clockbound") && !bounds.equals("chrony")
                && !bounds.equals("vmclock") && !bounds.equals("adjtimex")) {
            boundsError = "unknown " + BOUNDS + "=" + boundsValue + ": valid values are auto (a ClockBound segment,"
                    + " else chronyd, else VMClock's time, else adjtimex), clockbound, chrony, vmclock and adjtimex";
            bounds = "auto";
        }
        String driftValue = value(properties, BOUNDS_DRIFT);
        long boundsDriftPpb = DEFAULT_BOUNDS_DRIFT_PPM * 1000L;
        if (driftValue != null) {
            double ppm;
            try {
                ppm = Double.parseDouble(driftValue.strip());
            } catch (NumberFormatException e) {
                ppm = Double.NaN;
            }
            if (ppm > 0 && ppm <= 500) {
                boundsDriftPpb = (long) Math.ceil(ppm * 1000);
            } else if (boundsError == null) {
                boundsError = BOUNDS_DRIFT + "=" + driftValue + " is no drift: give ppm above 0 and at most 500"
                        + " (default " + DEFAULT_BOUNDS_DRIFT_PPM + ")";
            }
        }
        String leapValue = value(properties, LEAP_SECONDS);
        String leapSeconds = leapValue == null ? LeapSecondList.DEFAULT_PATH : leapValue.strip();
        String leapSecondsError = null;
        if (leapSeconds.isEmpty() || leapSeconds.indexOf('\0') >= 0) {
            leapSecondsError = LEAP_SECONDS + "=" + leapValue.replace('\0', '?') + " is no path: give the file of a"
                    + " leap-second list (IERS format), or leave it unset for " + LeapSecondList.DEFAULT_PATH;
            leapSeconds = LeapSecondList.DEFAULT_PATH;
        }
        String historyValue = value(properties, HISTORY);
        int historySeconds = DEFAULT_HISTORY_SECONDS;
        String historyError = null;
        if (historyValue != null) {
            try {
                historySeconds = Integer.parseInt(historyValue.strip());
            } catch (NumberFormatException e) {
                historySeconds = -1;
            }
            if (historySeconds < 0 || historySeconds > 3600) {
                historyError = HISTORY + "=" + historyValue + " is no length: give whole seconds, 0 (none kept) to"
                        + " 3600";
                historySeconds = DEFAULT_HISTORY_SECONDS;
            }
        }
        return new Configuration(counterName, !vdso.equals("off"), !execmem.equals("deny"), !vclock.equals("off"),
                counterError, vdsoError, execmemError, vclockError, discovery.equals("caller"), discoveryError,
                bounds, boundsError, boundsDriftPpb, leapSeconds, leapSecondsError, historySeconds, historyError);
    }

    private static String value(Map<?, ?> properties, String name) {
        return properties.get(name) instanceof String v ? v : null;
    }

    private static String normal(String value, String unset) {
        return value == null ? unset : value.trim().toLowerCase(Locale.ROOT);
    }

    /** {@return the counter mode} */
    public CounterMode counter() {
        return CounterMode.parse(counterName);
    }

    /** {@return whether {@value #COUNTER}=kernel chose the kernel's clocks: no counter is read, exact mode neither} */
    public boolean kernelChosen() {
        return counterName.equals("kernel");
    }

    /** {@return every bad value's error, one line each, in the order the properties are listed above} */
    public List<String> errors() {
        List<String> e = new ArrayList<>();
        for (String s : new String[] {counterError, vdsoError, execmemError, vclockError, discoveryError, boundsError,
            leapSecondsError, historyError}) {
            if (s != null) {
                e.add(s);
            }
        }
        return e;
    }

    /** {@return one line per bad value: its error and the default used instead, as the process warns} */
    public List<String> warnings() {
        List<String> w = new ArrayList<>();
        String[][] pairs = {{counterError, "auto"}, {vdsoError, "auto"}, {execmemError, "allow"},
            {vclockError, "auto"}, {discoveryError, "background"}, {boundsError, boundsDefault()},
            {leapSecondsError, LeapSecondList.DEFAULT_PATH}, {historyError, DEFAULT_HISTORY_SECONDS + " s"}};
        for (String[] p : pairs) {
            if (p[0] != null) {
                w.add("timekeeping4j: " + p[0] + "; using " + p[1]);
            }
        }
        return w;
    }

    private String boundsDefault() {
        return boundsError != null && boundsError.startsWith(BOUNDS_DRIFT) ? DEFAULT_BOUNDS_DRIFT_PPM + " ppm" : "auto";
    }

    private static boolean warned;

    /** Prints this process's {@link #warnings()} to stderr, once: the first read calls it. */
    public static synchronized void warnOnce() {
        if (!warned) {
            warned = true;
            for (String w : PROCESS.warnings()) {
                System.err.println(w);
            }
        }
    }

}
