package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the device commands ({@code phc}, {@code pps}) share: their output, lines as the kernel's tools print them,
 * one per reading as it comes, or with {@code --json} one object at the end holding the device, the command's
 * fields and the readings.
 */
abstract class DeviceCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print one JSON object instead of the lines.")
    boolean json;

    @Spec
    CommandSpec spec;

    private final List<Map<String, Object>> rows = new ArrayList<>();

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** A line of the human output, folded to the width; nothing under {@code --json}. */
    void line(String format, Object... args) {
        if (!json) {
            print(String.format(format, args));
        }
    }

    /** Where a folded line continues: under the value column of the command's {@code label  value} lines. */
    int continuation() {
        return 2;
    }

    private void print(String text) {
        for (String l : text.split("\\R", -1)) {
            if (!l.isEmpty()) {
                out().println(Terminal.folded(l, Terminal.width(spec), " ".repeat(continuation())));
            }
        }
    }

    /** One reading: its line, or under {@code --json} its fields, kept for {@link #object}. */
    void row(Supplier<Map<String, Object>> fields, String format, Object... args) {
        if (json) {
            rows.add(fields.get());
        } else {
            print(String.format(format, args));
        }
    }

    /** The readings' fields so far (empty without {@code --json}). */
    List<Map<String, Object>> rows() {
        return rows;
    }

    /** The JSON object to fill in, the device first. */
    static Map<String, Object> object(Path device) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("device", device.toString());
        return m;
    }

    /** Under {@code --json} prints {@code object}; flushes either way. */
    void end(Supplier<Map<String, Object>> object) {
        if (json) {
            out().println(Json.write(object.get(), Terminal.width(spec)));
        }
        out().flush();
    }
}
