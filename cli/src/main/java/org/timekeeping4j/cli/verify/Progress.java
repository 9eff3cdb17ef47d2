package org.timekeeping4j.cli.verify;

import java.io.PrintWriter;

/**
 * A progress line on stderr for runs long enough to wonder about: on a terminal, for runs planned at 2 s or
 * more, once a second, rewritten in place, "tk4j verify: 3 s of about 10 s, consistency kernel CLOCK_MONOTONIC",
 * wiped when the run ends. Elsewhere (a file, a pipe, a CI log) a line stays for good, so only runs planned at
 * {@link #MIN_LOGGED_NANOS} or more print one, every 30 s. Shorter runs print nothing.
 *
 * <p>Threading: {@link #doing} from the coordinating thread; the line is printed by a daemon ticker thread.
 */
public final class Progress implements AutoCloseable {

    private static final long MIN_PLANNED_NANOS = 2_000_000_000L;
    /** Off a terminal: the shortest planned run that prints progress lines at all. */
    static final long MIN_LOGGED_NANOS = 60_000_000_000L;

    private final PrintWriter err;
    private final String what;
    private final double plannedSeconds;
    private final long start = System.nanoTime();
    private final Thread ticker;
    // On a terminal the line is rewritten in place every second; into a file or pipe, a plain line every 30 s.
    private final boolean inPlace = System.console() != null && System.console().isTerminal();
    private volatile String current = "";
    private volatile boolean done;
    private int printedWidth;

    /** A progress line for a run of about {@code plannedSeconds}; {@code err} may be null for none. */
    public Progress(PrintWriter err, String what, double plannedSeconds) {
        this.err = err;
        this.what = what;
        this.plannedSeconds = plannedSeconds;
        if (err != null && plannedSeconds * 1e9 >= (inPlace ? MIN_PLANNED_NANOS : MIN_LOGGED_NANOS)) {
            ticker = Thread.ofPlatform().daemon().name("tk4j-progress").start(this::tick);
        } else {
            ticker = null;
        }
    }

    /** A progress reporter that prints nothing. */
    public static Progress none() {
        return new Progress(null, "", 0);
    }

    /** Names the step now running. */
    public void doing(String step) {
        current = step;
    }

    private void tick() {
        while (!done) {
            try {
                Thread.sleep(inPlace ? 1000 : 30_000);
            } catch (InterruptedException e) {
                return;
            }
            if (done) {
                return;
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            synchronized (err) {
                String line = line(what, elapsed, plannedSeconds, current);
                if (inPlace) {
                    // Overwrite the previous line in place: '\r', the text, blanks over any longer leftover.
                    err.print("\r" + line + " ".repeat(Math.max(0, printedWidth - line.length())));
                    printedWidth = Math.max(printedWidth, line.length());
                } else {
                    err.println(line);
                }
                err.flush();
            }
        }
    }

    /**
     * "tk4j verify: 3 s of about 10 s, STEP"; once past the plan (a loaded machine, a slow cell), "12 s, over the
     * planned 10 s, STEP": never a figure beyond its own total.
     */
    public static String line(String what, double elapsed, double planned, String step) {
        long e = Math.round(elapsed);
        long p = Math.round(planned);
        return e <= p ? String.format("%s: %d s of about %d s, %s", what, e, p, step)
                : String.format("%s: %d s, over the planned %d s, %s", what, e, p, step);
    }

    @Override
    public void close() {
        done = true;
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (err) {
                if (printedWidth > 0) { // wipe the line: the report that follows starts clean
                    err.print("\r" + " ".repeat(printedWidth) + "\r");
                    err.flush();
                }
            }
        }
    }
}
