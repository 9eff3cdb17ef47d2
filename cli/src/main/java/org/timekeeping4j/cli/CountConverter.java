package org.timekeeping4j.cli;

import picocli.CommandLine;

/** Parses a count as the help prints it: 1000, 1_000_000, 500k, 1M (k = 1000, M = 1000000). */
final class CountConverter implements CommandLine.ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        String v = value.trim().replace("_", "");
        long scale = 1;
        if (v.endsWith("k") || v.endsWith("K")) {
            scale = 1_000;
        } else if (v.endsWith("M")) {
            scale = 1_000_000;
        }
        String digits = scale == 1 ? v : v.substring(0, v.length() - 1);
        if (!digits.matches("\\d{1,12}")) {
            throw new CommandLine.TypeConversionException("'" + value + "' is no count (e.g. 1000, 500k, 1M)");
        }
        return Long.parseLong(digits) * scale;
    }
}
