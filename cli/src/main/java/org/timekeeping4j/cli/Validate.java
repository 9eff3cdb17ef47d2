package org.timekeeping4j.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Option checks every command runs first, before any work: a bad value is a {@link CommandLine.ParameterException}
 * (exit 2, one line naming the option, the valid range and the value given; see {@link Tk4j#run}).
 */
final class Validate {

    /** The longest timed run any option may ask for: an hour. */
    static final double MAX_RUN_SECONDS = 3600;

    private Validate() {}

    /** Reader threads per cell: 1 to twice the CPUs, at least 8 (more only measures the scheduler). */
    static int maxThreads() {
        return Math.max(8, 2 * Runtime.getRuntime().availableProcessors());
    }

    /** "-t/--duration": the option as the user may have typed it, every name of it. */
    static String named(CommandSpec spec, String option) {
        CommandLine.Model.OptionSpec o = spec == null ? null : spec.findOption(option);
        return o == null ? option : named(o);
    }

    /** "-t/--duration": every name of {@code o}. */
    static String named(CommandLine.Model.OptionSpec o) {
        return String.join("/", o.names());
    }

    static CommandLine.ParameterException usage(CommandSpec spec, String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /**
     * A finite number of seconds in {@code (min, max]} ({@code [min, max]} when {@code minInclusive}).
     *
     * @return the value
     */
    static double seconds(CommandSpec spec, String option, double value, double min, boolean minInclusive,
                          double max) {
        boolean ok = Double.isFinite(value) && (minInclusive ? value >= min : value > min) && value <= max;
        if (!ok) {
            throw usage(spec, named(spec, option) + " " + fmt(value) + ": give " + (minInclusive ? "at least "
                    + fmt(min) : "more than " + fmt(min)) + " and at most " + fmt(max) + " seconds");
        }
        return value;
    }

    /** A finite number in {@code (min, max]}, with its unit. */
    static double positive(CommandSpec spec, String option, double value, double max, String unit) {
        if (!(Double.isFinite(value) && value > 0 && value <= max)) {
            throw usage(spec, named(spec, option) + " " + fmt(value) + ": give more than 0 and at most " + fmt(max)
                    + " " + unit);
        }
        return value;
    }

    /** An integer in {@code [min, max]}. */
    static long range(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usage(spec, named(spec, option) + " " + value + ": give " + min + ".." + max);
        }
        return value;
    }

    /**
     * A file the command will write at the end: its directory exists and is writable, and the path is not a
     * directory nor a read-only file. Checked before the run, so that a long run is not lost to a typo.
     */
    static void outputFile(CommandSpec spec, String option, Path file) {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        String reason = null;
        if (Files.isDirectory(abs)) {
            reason = "is a directory (name a file in it)";
        } else if (dir == null || !Files.isDirectory(dir)) {
            reason = "its directory does not exist";
        } else if (Files.exists(abs) && !Files.isWritable(abs)) {
            reason = "is not writable";
        } else if (!Files.exists(abs) && !Files.isWritable(dir)) {
            reason = "directory " + dir + " is not writable";
        }
        if (reason == null) {
            reason = probe(abs);
        }
        if (reason != null) {
            throw usage(spec, option + " " + file + ": " + reason);
        }
    }

    /**
     * Opens the file for writing without changing it (appending nothing; a file made for the probe is removed):
     * permission bits and a writable directory do not tell, for example, that /proc takes no new files.
     */
    private static String probe(Path abs) {
        boolean existed = Files.exists(abs);
        try (var channel = java.nio.channels.FileChannel.open(abs, java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE)) {
            return null;
        } catch (java.io.IOException e) {
            return (existed ? "cannot be written: " : "cannot be created in " + abs.getParent() + ": ")
                    + BenchCommand.reason(e);
        } finally {
            if (!existed) {
                try {
                    Files.deleteIfExists(abs);
                } catch (java.io.IOException e) {
                    // made but not removable: the run writes it anyway
                }
            }
        }
    }

    /** 5 as "5", 0.5 as "0.5". */
    static String fmt(double v) {
        return Double.isFinite(v) && v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
