package org.timekeeping4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs tk4j in-process with captured output: the StringWriter harness every CLI test uses. */
record CliHarness(int exitCode, String out, String err) {

    static CliHarness run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Tk4j.run(Terminal.Source.NONE, new PrintWriter(out), new PrintWriter(err), args);
        return new CliHarness(code, out.toString(), err.toString());
    }
}
