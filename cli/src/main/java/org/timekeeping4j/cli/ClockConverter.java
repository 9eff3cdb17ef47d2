package org.timekeeping4j.cli;

import java.util.Locale;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;
import picocli.CommandLine;

/**
 * Parses a clock option: MONOTONIC, CLOCK_MONOTONIC, monotonic_raw, a kernel id such as 4, and every name
 * {@code tk4j info} prints, CLOCK_AUX+3 included (also AUX+3, AUX_3).
 */
final class ClockConverter implements CommandLine.ITypeConverter<ClockId> {

    @Override
    public ClockId convert(String value) {
        String v = value.trim();
        if (v.matches("-?\\d{1,10}")) { // before '-' becomes '_': a negative id is an id
            long id = Long.parseLong(v); // at most 10 digits: fits a long
            if (id != (int) id) {
                throw new CommandLine.TypeConversionException("'" + v + "' is beyond a clockid_t (32 bits)");
            }
            try {
                return ClockId.of((int) id);
            } catch (IllegalArgumentException e) {
                // Where the user meets the error, say what the kernel itself answers for that id too.
                // Where the kernel reads the id anyway (a CPU-time or dynamic clock), say so too.
                throw new CommandLine.TypeConversionException(e.getMessage().replace("clock id " + id + " ",
                        "'" + v + "' ") + kernelAnswer((int) id));
            }
        }
        v = v.toUpperCase(Locale.ROOT).replace('-', '_');
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
            throw new CommandLine.TypeConversionException("'" + value + "' is no clock (e.g. MONOTONIC, AUX+0, 4)");
        }
    }

    /** "; clock_gettime reads it (...)" where the kernel has a time for {@code id}, else "" (it refuses it). */
    private static String kernelAnswer(int id) {
        if (Platform.UNSUPPORTED_REASON != null) {
            return "";
        }
        return LinuxTime.clockGettimeErrno(id) == 0 ? "; clock_gettime reads it (a CPU-time or dynamic clock)" : "";
    }
}
