package org.timekeeping4j.cli;

import java.util.Locale;
import org.timekeeping4j.ClockId;
import picocli.CommandLine;

/**
 * Parses a clock option: MONOTONIC, CLOCK_MONOTONIC, monotonic_raw, a kernel id such as 4, and every name
 * {@code tk4j info} prints, CLOCK_AUX+3 included (also AUX+3, AUX_3).
 */
final class ClockConverter implements CommandLine.ITypeConverter<ClockId> {

    @Override
    public ClockId convert(String value) {
        String v = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (v.matches("-?\\d{1,10}")) {
            try {
                return ClockId.of(Integer.parseInt(v));
            } catch (IllegalArgumentException e) { // NumberFormatException included: beyond int
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
        if (v.startsWith("CLOCK_")) {
            v = v.substring("CLOCK_".length());
        }
        java.util.regex.Matcher aux = java.util.regex.Pattern.compile("AUX\\+(\\d{1,9})").matcher(v);
        if (aux.matches()) { // the kernel's name, CLOCK_AUX+N, as kernelName() prints it
            v = "AUX_" + aux.group(1);
        }
        try {
            return ClockId.valueOf(v);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is no clock (e.g. MONOTONIC, "
                    + "CLOCK_REALTIME, CLOCK_AUX+0, 4)");
        }
    }
}
