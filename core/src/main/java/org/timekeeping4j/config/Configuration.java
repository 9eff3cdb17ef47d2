package org.timekeeping4j.config;

import java.util.Locale;
import java.util.function.UnaryOperator;

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
 *       (clock_gettime answers every vclock mode: for comparisons and drills).</li>
 * </ul>
 * A value that names nothing is an error, one line naming the property, the value and the valid values; the
 * other properties still parse. Where a value is bad, its field holds the default. A bad value of the first
 * three is the process's configuration error ({@link #error()}: every read reports it); a bad {@value #VCLOCK}
 * refuses exact mode only, with its error as the reason.
 *
 * @param counter      the counter mode
 * @param exactMode    false when {@value #VDSO}=off
 * @param execmem      false when {@value #EXECMEM}=deny
 * @param vclock       false when {@value #VCLOCK}=off
 * @param counterError null, or why {@value #COUNTER}'s value names no mode
 * @param vdsoError    null, or why {@value #VDSO}'s value is neither auto nor off
 * @param execmemError null, or why {@value #EXECMEM}'s value is neither allow nor deny
 * @param vclockError  null, or why {@value #VCLOCK}'s value is neither auto nor off
 */
public record Configuration(CounterMode counter, boolean exactMode, boolean execmem, boolean vclock,
        String counterError, String vdsoError, String execmemError, String vclockError) {

    /** The counter mode's property. */
    public static final String COUNTER = "timekeeping4j.counter";
    /** Exact mode's property. */
    public static final String VDSO = "timekeeping4j.vdso";
    /** The machine-code stubs' property. */
    public static final String EXECMEM = "timekeeping4j.execmem";
    /** Exact mode's vclock readers' property. */
    public static final String VCLOCK = "timekeeping4j.vclock";

    /** This process's configuration, read from the system properties on first use of this class. */
    public static final Configuration PROCESS = read(System::getProperty);

    /**
     * Parses the properties.
     *
     * @param properties the property values by name (null: unset)
     * @return the configuration
     */
    public static Configuration read(UnaryOperator<String> properties) {
        String counterValue = properties.apply(COUNTER);
        CounterMode counter = CounterMode.AUTO;
        String counterError = null;
        try {
            counter = CounterMode.parse(counterValue);
        } catch (IllegalArgumentException e) {
            counterError = e.getMessage();
        }
        String vdsoValue = properties.apply(VDSO);
        String vdso = normal(vdsoValue, "auto");
        String vdsoError = vdso.equals("auto") || vdso.equals("off") ? null : "unknown " + VDSO + "=" + vdsoValue
                + ": valid values are auto (exact mode wherever the kernel's vDSO data validates) and off";
        String execmemValue = properties.apply(EXECMEM);
        String execmem = normal(execmemValue, "allow");
        String execmemError = execmem.equals("allow") || execmem.equals("deny") ? null
                : EXECMEM + "=" + execmemValue + " is not an execmem mode; use one of allow, deny";
        String vclockValue = properties.apply(VCLOCK);
        String vclock = normal(vclockValue, "auto");
        String vclockError = vclock.equals("auto") || vclock.equals("off") ? null : "unknown " + VCLOCK + "="
                + vclockValue + ": valid values are auto (read kvm-clock's pvclock page where it is backed) and off";
        return new Configuration(counter, !vdso.equals("off"), !execmem.equals("deny"), !vclock.equals("off"),
                counterError, vdsoError, execmemError, vclockError);
    }

    private static String normal(String value, String unset) {
        return value == null ? unset : value.trim().toLowerCase(Locale.ROOT);
    }

    /** {@return whether {@value #COUNTER}=kernel chose the kernel's clocks: no counter is read, exact mode neither} */
    public boolean kernelChosen() {
        return counter == CounterMode.KERNEL;
    }

    /**
     * {@return the first bad value's error, in the order counter, execmem, vdso, or null when all three parse
     * ({@link #vclockError()} is exact mode's alone)}
     */
    public IllegalArgumentException error() {
        String e = counterError != null ? counterError : execmemError != null ? execmemError : vdsoError;
        return e == null ? null : new IllegalArgumentException(e);
    }
}
