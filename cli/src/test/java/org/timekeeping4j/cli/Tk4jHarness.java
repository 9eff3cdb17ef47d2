package org.timekeeping4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** Runs tk4j in-process through {@link Tk4j#run} and captures what it prints. */
record Tk4jHarness(int exit, String out, String err) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Tk4jHarness run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Tk4j.run(Terminal.Source.NONE, new PrintWriter(out), new PrintWriter(err), args);
        return new Tk4jHarness(exit, out.toString(), err.toString());
    }

    /**
     * The output with each folded line joined back to the one it continues (a continuation starts with four or
     * more blanks), for assertions on a whole line whatever the width.
     */
    String unfolded() {
        return out.replaceAll("\\R {4,}", " ");
    }

    /**
     * The errors with each folded line joined back (a continuation starts with two blanks): an error naming a long
     * path folds to the width, one message still.
     */
    String unfoldedErr() {
        return err.replaceAll("\\R  ", " ");
    }

    JsonNode json() {
        try {
            return JSON.readTree(out);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException("not JSON: " + out, e);
        }
    }

    /** A {@code --json} prose field (an array of lines) as its sentence: the lines joined with a blank. */
    static String prose(JsonNode field) {
        if (field == null || !field.isArray()) {
            throw new AssertionError("not a prose field (an array of lines): " + field);
        }
        java.util.List<String> lines = new java.util.ArrayList<>();
        field.forEach(n -> lines.add(n.asText()));
        return String.join(" ", lines);
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- out\n" + out + "\n--- err\n" + err;
    }
}
